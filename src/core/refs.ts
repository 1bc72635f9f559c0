/** The kinds of row a body may name by id. */
export type RefTarget = 'user' | 'company' | 'contact' | 'deal';

/**
 * Body fields that name other rows of the account: `{ owner_id: ['user', 7] }`, or a list such as
 * `{ follower_ids: ['user', [3, 7]] }` whose problems are reported per index (`follower_ids.1`).
 */
export type Refs = Record<string, [RefTarget, number | number[] | null | undefined]>;
