import { accountWithDeal, call, create, d1Of, insertRow, newUser, resource } from '../../helpers';

// Shared by the tasks route tests (test/routes/tasks/*.test.ts).

export const { get, listIds, put } = resource('/v1/tasks');

export const post = (key: string, body: unknown) => call('/v1/tasks', { method: 'POST', key, body });

/** A new account with a deal and a user, Owner, and a task `name` on the deal with every field set. */
export async function taskWithEveryField(name: string) {
  const { key, dealId } = await accountWithDeal();
  const owner = await newUser(key, 'Owner');
  const task = await create(key, '/v1/tasks', {
    deal_id: dealId,
    name,
    description: 'Text',
    due_date: '2026-05-01T12:00:00Z',
    category: 'Call',
    owner_id: owner.id,
  });
  return { key, owner, task };
}

/** A category row written straight to D1 (ASCII names only: name_norm is their lower case). */
export const insertCategory = (accountId: number, name: string): Promise<number> =>
  insertRow('task_categories', {
    account_id: accountId,
    name,
    name_norm: name.toLowerCase(),
    created_at: Date.now(),
  });

export type TaskRow = {
  dealId: number;
  categoryId: number;
  created: number;
  updated?: number;
  due?: number | null;
  completed?: number | null;
  name?: string;
};

/** A task row written straight to D1, so its timestamps (epoch ms) can be chosen. */
export const insertTask = (accountId: number, t: TaskRow): Promise<number> =>
  insertRow('tasks', {
    account_id: accountId,
    name: t.name ?? 'Task',
    deal_id: t.dealId,
    category_id: t.categoryId,
    due_date: t.due ?? null,
    completed_at: t.completed ?? null,
    created_at: t.created,
    updated_at: t.updated ?? t.created,
  });

/** Owners written straight to D1, as [task, user] pairs in one batch: the API itself only ever sets one. */
export async function insertOwners(accountId: number, owners: [number, number][]): Promise<void> {
  const d1 = d1Of(accountId);
  await d1.batch(
    owners.map(([taskId, userId]) =>
      d1
        .prepare('INSERT INTO task_owners (account_id, task_id, user_id) VALUES (?, ?, ?)')
        .bind(accountId, taskId, userId),
    ),
  );
}

/** Extra owners of one task. */
export const addOwners = (accountId: number, taskId: number, userIds: number[]): Promise<void> =>
  insertOwners(
    accountId,
    userIds.map((userId) => [taskId, userId]),
  );

export const TASK_KEYS = [
  'category',
  'completed_at',
  'created_at',
  'deal_id',
  'deleted_at',
  'description',
  'due_date',
  'external_id',
  'id',
  'is_completed',
  'name',
  'owner_ids',
  'updated_at',
];
