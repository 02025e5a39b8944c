import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { portOf, request } from '../helpers/http.js';
import { waitUntil } from '../helpers/poll-until.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { SseClient } from './support/sse-client.js';

const STREAM = `/api/users/events?pwd=${TEST_PASSWORD}`;
/** Events of about 2 KB each, 24 MB in all: more than the socket buffers between a reader that reads nothing and the service hold. */
const FLOOD_EVENTS = 12_000;
const FLOOD_NAME_LENGTH = 2000;

interface StalledReader {
  /** What came before it stopped reading: the head and the first bytes. */
  head: string;
  /** Reads on: resolves with everything received, once the connection has ended. */
  readToEnd(): Promise<string>;
}

/** A reader that reads the head of its answer and then nothing more, until it is told to read on. */
function stalledReader(service: RunningService): Promise<StalledReader> {
  const socket: Socket = connect(portOf(service.baseUrl), '127.0.0.1');
  socket.setEncoding('latin1');
  let text = '';
  // A reset may close it while it reads nothing: what it holds unread is then lost, as for any client.
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => {});
  socket.on('data', (chunk: string) => (text += chunk));
  socket.write(`GET ${STREAM} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  return new Promise((resolve) => {
    socket.once('data', () => {
      socket.pause();
      resolve({
        head: text,
        readToEnd: async () => {
          socket.resume();
          await closed;
          return text;
        },
      });
    });
  });
}

describe('a reader that falls too far behind is closed; the others are served on', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('stream_slow', { events: { retentionSeconds: 86_400, webhooks: undefined }, eventStream: { drainTimeoutMs: 2000, pollMs: 50 } });
    assert.equal((await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'First', email: 'first@slow.example' } })).status, 201);
  });
  after(() => service?.close());

  /**
   * Records a flood of large events straight into the outbox, ids taken under the sequence's lock
   * as the service takes them: resolves with the last id.
   */
  async function recordFlood(): Promise<number> {
    await service.db.query('START TRANSACTION');
    const [row] = await service.db.query<Array<{ last_id: number }>>('SELECT last_id FROM event_sequence WHERE id = 1 FOR UPDATE');
    const first = row!.last_id + 1;
    const digit = '(SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)';
    await service.db.query(
      'INSERT INTO user_events (id, type, user_id, name, email, created_at, request_id) ' +
        "SELECT ? + n.i, 'user.updated', 1, REPEAT('x', ?), 'flood@slow.example', NOW(), CONCAT('flood-', n.i) " +
        `FROM (SELECT a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d AS i FROM ${digit} a, ${digit} b, ${digit} c, ${digit} e, ${digit} f) n WHERE n.i < ?`,
      [first, FLOOD_NAME_LENGTH, FLOOD_EVENTS],
    );
    await service.db.query('UPDATE event_sequence SET last_id = ? WHERE id = 1', [first + FLOOD_EVENTS - 1]);
    await service.db.query('COMMIT');
    return first + FLOOD_EVENTS - 1;
  }

  test('a stream whose reader reads nothing is closed once it has taken nothing for the drain timeout, while another stream and the API are served', async () => {
    const slow = await stalledReader(service);
    assert.match(slow.head, /^HTTP\/1\.1 200 OK\r\n/);
    const last = await recordFlood();

    const other = await SseClient.open(service.baseUrl, STREAM, { 'last-event-id': String(last) });
    try {
      await waitUntil('the slow reader to be closed', () => service.logs.some((line) => line.includes('event stream closed: its reader fell behind')));
      const created = await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'Later', email: 'later@slow.example' }, headers: { 'x-request-id': 'after-the-flood' } });
      assert.equal(created.status, 201);
      const event = await other.nextEvent();
      assert.deepEqual([event?.id, event?.data.request_id], [last + 1, 'after-the-flood']);
      assert.equal((await request(service.baseUrl, 'GET', '/api/users/1')).status, 200);
    } finally {
      other.close();
    }

    const received = await slow.readToEnd();
    const events = received.split('\nevent: ').length - 1;
    assert.ok(events < FLOOD_EVENTS, `the closed reader got ${events} of the ${FLOOD_EVENTS} events, not all of them buffered for it`);
  });
});
