import mysql from 'mysql2/promise';
import { testServer, type TestDatabase } from '../../helpers/database.js';

/** One answer a polling client got: what it asked, when it was answered (ms since the epoch), and the status (0: no answer). */
export interface Answer {
  kind: 'read' | 'create';
  at: number;
  status: number;
}

/**
 * A client that starts asking as soon as the service listens, as a load balancer's first request or
 * an impatient deploy script would: a read and a create one after the other, every `everyMs`,
 * keyed creates when `keyed`, until stopped.
 */
export function pollFromTheStart(baseUrl: string, keyed: boolean, everyMs = 20): { answers: Answer[]; stop(): Promise<void> } {
  const answers: Answer[] = [];
  let stopped = false;
  let n = 0;
  const ask = async (kind: Answer['kind']): Promise<void> => {
    const create = kind === 'create';
    const i = n++;
    const res = await fetch(`${baseUrl}${create ? '/api/users' : '/api/users/1'}`, {
      method: create ? 'POST' : 'GET',
      headers: create ? { 'content-type': 'application/json', ...(keyed ? { 'idempotency-key': `first-minute-${i}` } : {}) } : {},
      ...(create ? { body: JSON.stringify({ name: `Early ${i}`, email: `early-${i}@example.com` }) } : {}),
      signal: AbortSignal.timeout(15_000),
    }).catch(() => undefined);
    await res?.body?.cancel();
    answers.push({ kind, at: Date.now(), status: res?.status ?? 0 });
  };
  const running = (async () => {
    while (!stopped) {
      await ask('read');
      await ask('create');
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    answers,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

/** What a start's answers show: any 500, and any refusal (503) after a success. */
export function judgeStart(answers: readonly Answer[]): { errors: Answer[]; refusedAfterSuccess: Answer[]; firstSuccess: number | undefined } {
  const first = answers.findIndex((answer) => answer.status >= 200 && answer.status < 300);
  return {
    errors: answers.filter((answer) => answer.status >= 500 && answer.status !== 503),
    refusedAfterSuccess: first < 0 ? [] : answers.slice(first).filter((answer) => answer.status === 503),
    firstSuccess: first < 0 ? undefined : answers[first]!.at,
  };
}

/** `count` more users in the database's users table, in one statement (MariaDB's sequence engine). */
export async function bulkUsers(db: TestDatabase, count: number): Promise<void> {
  const admin = await mysql.createConnection({ ...testServer, database: db.config.database });
  try {
    await admin.query(`INSERT INTO users (name, email) SELECT CONCAT('Bulk ', seq), CONCAT('bulk-', seq, '@example.com') FROM seq_1_to_${count}`);
  } finally {
    await admin.end();
  }
}
