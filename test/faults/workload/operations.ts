import type { Op, OpKind, UserValue } from '../checkers/history.js';
import { TEST_PASSWORD } from '../../helpers/service.js';
import { outcomeOf } from './outcome.js';
import type { UserPool } from './user-pool.js';

/** How long a client waits for an answer before it counts the request's outcome unknown. */
const CLIENT_TIMEOUT_MS = 10_000;

export interface WorkloadContext {
  /** Every user and request id of the run starts with it. */
  tag: string;
  instances: string[];
  pool: UserPool;
  history: Op[];
  clock: () => number;
  random: () => number;
}

/** The mix of requests: weights out of 100. */
const MIX: Array<[OpKind, number]> = [
  ['create', 20],
  ['put', 14],
  ['cas-put', 14],
  ['cas-patch', 10],
  ['delete', 4],
  ['read', 28],
  ['list', 10],
];

export function chooseKind(random: () => number): OpKind {
  let roll = random() * 100;
  for (const [kind, weight] of MIX) if ((roll -= weight) < 0) return kind;
  return 'read';
}

/** Sends one request of `kind` through a random instance and records it in the history. */
export async function runOperation(ctx: WorkloadContext, kind: OpKind): Promise<void> {
  const user = kind === 'create' ? undefined : ctx.pool.pick(ctx.random);
  if (kind !== 'create' && user === undefined) return runOperation(ctx, 'create');
  if ((kind === 'cas-put' || kind === 'cas-patch') && user!.etag === undefined) return runOperation(ctx, 'read');
  const id = ctx.history.length + 1;
  const instance = Math.floor(ctx.random() * ctx.instances.length);
  const op: Op = { id, requestId: `${ctx.tag}-${id}`, kind, instance, sent: 0, outcome: 'unknown', userId: kind === 'list' ? undefined : user?.id };
  ctx.history.push(op);
  const fresh: UserValue = { name: `${ctx.tag}-${kind === 'create' ? 'c' : 'w'}${id}`, email: `${ctx.tag}-${kind === 'create' ? 'c' : 'w'}${id}@faults.test` };
  const headers: Record<string, string> = { 'x-request-id': op.requestId };
  let method = 'GET';
  let path = `/api/users/${user?.id}`;
  let body: unknown;
  switch (kind) {
    case 'create':
      Object.assign(op, { marker: fresh.name, value: fresh });
      [method, path, body] = ['POST', '/api/users', fresh];
      break;
    case 'put':
      Object.assign(op, { value: fresh });
      [method, body] = ['PUT', fresh];
      break;
    case 'cas-put':
    case 'cas-patch':
      Object.assign(op, { expected: user!.value, etag: user!.etag, value: kind === 'cas-put' ? fresh : { name: fresh.name, email: user!.value.email } });
      headers['if-match'] = user!.etag!;
      [method, body] = kind === 'cas-put' ? ['PUT', fresh] : ['PATCH', { name: fresh.name }];
      break;
    case 'delete':
      method = 'DELETE';
      break;
    case 'list':
      path = `/api/users?pwd=${TEST_PASSWORD}&limit=20&after=${Math.max(0, user!.id - 10)}`;
      break;
  }
  op.sent = ctx.clock();
  try {
    const res = await fetch(ctx.instances[instance]! + path, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    const text = await res.text();
    op.answered = ctx.clock();
    op.status = res.status;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    op.outcome = outcomeOf(res.status, json);
    learn(ctx, op, res, json);
  } catch {
    op.outcome = 'unknown';
  }
}

/** What an answer teaches the clients: a new user's id, a value and its ETag, a user gone. */
function learn(ctx: WorkloadContext, op: Op, res: Response, json: unknown): void {
  const etag = res.headers.get('etag') ?? undefined;
  if (op.kind === 'create' && op.outcome === 'ok') {
    op.userId = Number(res.headers.get('location')?.split('/').pop());
    ctx.pool.add({ id: op.userId, value: op.value! });
  } else if (op.kind === 'read') {
    if (op.status === 200) {
      const user = json as UserValue;
      op.read = { name: user.name, email: user.email };
      ctx.pool.learn(op.userId!, op.read, etag);
    } else if (op.status === 404) op.read = null;
  } else if (op.kind === 'list' && op.status === 200) {
    op.page = (json as Array<UserValue & { id: number }>).filter((user) => user.name.startsWith(ctx.tag)).map(({ id, name, email }) => ({ id, name, email }));
  } else if (op.outcome === 'ok' && op.kind !== 'delete') {
    ctx.pool.learn(op.userId!, op.value!, etag);
  } else if (op.status === 404) {
    ctx.pool.forget(op.userId!);
  }
}
