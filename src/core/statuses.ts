/** The states a stored value may take: shared by the table definitions and the wire contracts. */
export const dealStatuses = ['open', 'won', 'lost'] as const;

export const webhookModes = ['production', 'test'] as const;

export const eventStatuses = ['pending', 'processed', 'failed', 'test', 'rejected'] as const;
