// The people's names and the deterministic PRNG that bench/seed.mjs, seed-events.mjs and
// drill-events.mjs share: a module of its own, so the seeds import it rather than each other.

/** Comma-separated words, so the vocabulary below reads as prose. @param {string} text */
export const list = (text) => text.trim().split(/\s*,\s*/);

export const FIRST_NAMES = list(`
  Ana, Maria, João, José, Antônio, Francisco, Carlos, Paulo, Pedro, Lucas, Luís, Marcos, Gabriel,
  Rafael, Daniel, Marcelo, Bruno, Eduardo, Felipe, Rodrigo, Juliana, Fernanda, Patrícia, Aline,
  Adriana, Sandra, Camila, Amanda, Bruna, Jéssica, Letícia, Júlia, Luciana, Vanessa, Mariana,
  Gabriela, Vitória, Beatriz, Débora, Sônia, Conceição, Tânia, Márcia, Cláudia, Valéria, Érica,
  Otávio, Caio, Thiago, Vinícius, Sérgio, Fábio, Rogério, Mário, Cícero, Inês, Lúcia, Raimundo,
  Joaquim, Iracema
`);
export const SURNAMES = list(`
  Silva, Santos, Oliveira, Souza, Rodrigues, Ferreira, Alves, Pereira, Lima, Gomes, Costa,
  Ribeiro, Martins, Carvalho, Almeida, Lopes, Soares, Fernandes, Vieira, Barbosa, Rocha, Dias,
  Nascimento, Andrade, Moreira, Nunes, Marques, Machado, Mendes, Freitas, Cardoso, Ramos,
  Gonçalves, Santana, Teixeira, Araújo, Magalhães, Brandão, Falcão, Guimarães, Simões, Assunção,
  Peixoto, Monteiro, Figueiredo, D'Ávila, Catão, Bastião
`);

/** mulberry32: small, fast, and the same sequence for the same seed. @param {number} seed */
export function prng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A name as an email's local part: letters only, accents dropped, lower case. @param {string} text */
export const ascii = (text) =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();
