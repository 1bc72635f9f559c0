import type { Messages } from './i18n';

// The names people use for time zones: Brazil's by their usual names (the IANA name kept as a
// short suffix, so a zone found elsewhere can be matched), the rest by city under their region.

/** Brazil's IANA zones, Brasília's first, then east to west; each with the places it covers. */
const BRAZIL: [zone: string, label: (t: Messages) => string][] = [
  ['America/Sao_Paulo', (t) => `${t.zoneBrasilia} (São Paulo, Rio, BH, Brasília, Sul…)`],
  ['America/Noronha', () => 'Fernando de Noronha'],
  ['America/Bahia', () => 'Bahia (Salvador)'],
  ['America/Fortaleza', () => 'Fortaleza (Ceará, Maranhão, Piauí, RN, Paraíba)'],
  ['America/Recife', () => 'Recife (Pernambuco)'],
  ['America/Maceio', () => 'Maceió (Alagoas, Sergipe)'],
  ['America/Belem', () => 'Belém (Pará, Amapá)'],
  ['America/Santarem', (t) => `Santarém (${t.zoneWestPara})`],
  ['America/Araguaina', () => 'Araguaína (Tocantins)'],
  ['America/Manaus', () => 'Manaus (Amazonas)'],
  ['America/Cuiaba', () => 'Cuiabá (Mato Grosso)'],
  ['America/Campo_Grande', () => 'Campo Grande (Mato Grosso do Sul)'],
  ['America/Porto_Velho', () => 'Porto Velho (Rondônia)'],
  ['America/Boa_Vista', () => 'Boa Vista (Roraima)'],
  ['America/Rio_Branco', () => 'Acre (Rio Branco)'],
  ['America/Eirunepe', (t) => `Eirunepé (${t.zoneWestAmazonas})`],
];

const REGIONS: [prefix: string, label: (t: Messages) => string][] = [
  ['America', (t) => t.zoneAmerica],
  ['Europe', (t) => t.zoneEurope],
  ['Africa', (t) => t.zoneAfrica],
  ['Asia', (t) => t.zoneAsia],
  ['Australia', (t) => t.zoneAustralia],
  ['Pacific', (t) => t.zonePacific],
  ['Atlantic', (t) => t.zoneAtlantic],
  ['Indian', (t) => t.zoneIndian],
  ['Antarctica', (t) => t.zoneAntarctica],
];

export type ZoneOption = { zone: string; label: string };
export type ZoneGroup = { label: string; options: ZoneOption[] };

/** "Argentina/Buenos_Aires" -> "Buenos Aires (Argentina)": the city first, for type-ahead. */
function cityLabel(rest: string): string {
  const parts = rest.replaceAll('_', ' ').split('/');
  const city = parts.pop() ?? rest;
  return parts.length ? `${city} (${parts.join(', ')})` : city;
}

/** The select's groups: Brazil's zones, then each region's by city, then the rest (UTC, Etc…). */
export function zoneGroups(t: Messages, all: readonly string[]): ZoneGroup[] {
  const known = new Set(all);
  const brazil = BRAZIL.filter(([z]) => known.has(z));
  const taken = new Set(brazil.map(([z]) => z));
  const groups: ZoneGroup[] = [
    {
      label: t.zonesBrazil,
      options: brazil.map(([zone, label]) => ({ zone, label: label(t) })),
    },
  ];
  for (const [prefix, label] of REGIONS) {
    const options = all
      .filter((z) => z.startsWith(`${prefix}/`) && !taken.has(z))
      .map((zone) => ({ zone, label: cityLabel(zone.slice(prefix.length + 1)) }))
      .sort((a, b) => a.label.localeCompare(b.label));
    for (const o of options) taken.add(o.zone);
    if (options.length) groups.push({ label: label(t), options });
  }
  const others = all.filter((z) => !taken.has(z)).map((zone) => ({ zone, label: zone.replaceAll('_', ' ') }));
  if (others.length) groups.push({ label: t.zoneOthers, options: others });
  return groups;
}

/**
 * A zone in words for a sentence ("Dias inteiros no fuso Horário de Brasília"): Brazil's by their
 * usual names, another by its city and region, never the bare IANA name when it has words.
 */
export function zoneName(t: Messages, zone: string): string {
  if (zone === 'America/Sao_Paulo') return t.zoneBrasilia;
  const brazil = BRAZIL.find(([z]) => z === zone);
  if (brazil) return brazil[1](t);
  const region = REGIONS.find(([prefix]) => zone.startsWith(`${prefix}/`));
  if (region) return `${cityLabel(zone.slice(region[0].length + 1))} · ${region[1](t)}`;
  return zone.replaceAll('_', ' ');
}
