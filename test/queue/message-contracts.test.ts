import { describe, expect, it } from 'vitest';
import { isImportMessage } from '../../src/model/import-messages';
import { isDeliveryMessage, isFanoutMessage } from '../../src/outbound/messages';
import { isEventMessage } from '../../src/webhooks/log/event-messages';
import { deliverChunk } from '../routes/bulk/import-support';

const chunk = {
  kind: 'import_chunk',
  import_id: 7,
  key_hash: 'a'.repeat(64),
  resource: 'contacts',
  mode: 'create',
  file_key: 'imports/7.csv',
  delimiter: ',',
  mapping: ['name', null],
  offset: 11,
  line: 2,
  shard: 1,
};

describe('queue messages are read through their zod contracts, every field of them', () => {
  it('a chunk message with any field of the wrong kind is not one', () => {
    expect(isImportMessage(chunk)).toBe(true);
    const broken = [
      { mapping: 'name' },
      { mapping: [1] },
      { mode: 'delete' },
      { offset: -1 },
      { line: 1.5 },
      { key_hash: null },
      { import_id: '7' },
    ];
    for (const change of broken)
      expect(isImportMessage({ ...chunk, ...change }), JSON.stringify(change)).toBe(false);
    const { file_key: _, ...missing } = chunk;
    expect(isImportMessage(missing)).toBe(false);
  });

  it('event, delivery and fan-out messages: their ids whole numbers, their shard optional', () => {
    expect(isEventMessage({ event_id: 3 })).toBe(true);
    expect(isEventMessage({ event_id: '3' })).toBe(false);
    expect(isEventMessage({ event_id: 3.5, shard: 0 })).toBe(false);
    expect(isDeliveryMessage({ delivery_id: 9, shard: 2 })).toBe(true);
    expect(isDeliveryMessage({ delivery_id: null })).toBe(false);
    expect(isFanoutMessage({ fanout: true })).toBe(true);
    expect(isFanoutMessage({ fanout: 'yes' })).toBe(false);
  });

  it('the imports queue retries a chunk message its contract refuses, and runs nothing', async () => {
    const result = await deliverChunk({ ...chunk, mapping: 'name' });
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(['redelivered']);
    expect(result.explicitAcks).toEqual([]);
  });
});
