/** A car dealership's lead as its site form posts it: the example of issue 41. */
export const DEALERSHIP = {
  nome: 'Ana Souza',
  telefone: '(11) 91234-5678',
  email: 'ana@example.com',
  veiculo: 'Onix LT',
  data_compra: '15/03/2025',
  cnpj: '11.222.333/0001-81',
};
