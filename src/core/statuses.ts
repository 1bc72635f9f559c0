/** The states a stored value may take: shared by the table definitions and the wire contracts. */
export const dealStatuses = ['open', 'won', 'lost'] as const;

export const webhookModes = ['production', 'test'] as const;

export const eventStatuses = ['pending', 'processed', 'failed', 'test', 'rejected'] as const;

/** Why the service itself turned an outbound endpoint off: a 410 answer, or 5 days of failures. */
export const endpointDisabledReasons = ['gone', 'failing'] as const;

/** Where a delivery to an outbound endpoint stands. */
export const deliveryStatuses = ['pending', 'succeeded', 'failed', 'aborted'] as const;
