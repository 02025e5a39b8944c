import type { Database } from '../../../db/database.js';
import { endpointSql, type AttemptFilters } from '../../../db/webhook-endpoint-statements.js';
import { isoTime } from '../../event-json.js';

/** What an attempts page asks for: each filter optional; `cursor` is the id of the last attempt of the page before. */
export interface AttemptQuery {
  status?: 'succeeded' | 'failed';
  eventType?: string;
  /** `YYYY-MM-DD HH:MM:SS.mmm`, UTC. */
  after?: string;
  before?: string;
  cursor?: number;
  limit: number;
}

export interface AttemptPage {
  attempts: Array<Record<string, unknown>>;
  /** The cursor of the next page, when there is one. */
  next: number | undefined;
}

interface AttemptRow {
  id: number | string;
  event_id: number | string;
  event_type: string;
  attempted_at: string;
  succeeded: number;
  response_status: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
}

/** An endpoint's attempts and counts, as its integrator reads them. */
export class EndpointHistory {
  constructor(private readonly db: Database) {}

  async attempts(endpoint: string, query: AttemptQuery): Promise<AttemptPage> {
    const filters: AttemptFilters = {
      succeeded: query.status !== undefined,
      eventType: query.eventType !== undefined,
      after: query.after !== undefined,
      before: query.before !== undefined,
      cursor: query.cursor !== undefined,
    };
    const values: unknown[] = [endpoint];
    if (query.status !== undefined) values.push(query.status === 'succeeded' ? 1 : 0);
    if (query.eventType !== undefined) values.push(query.eventType);
    if (query.after !== undefined) values.push(query.after);
    if (query.before !== undefined) values.push(query.before);
    if (query.cursor !== undefined) values.push(query.cursor);
    values.push(query.limit + 1);
    const rows = await this.db.read<AttemptRow[]>(endpointSql.attemptsPage(filters), values);
    const shown = rows.slice(0, query.limit);
    return { attempts: shown.map(attemptJson), next: rows.length > query.limit ? Number(shown.at(-1)!.id) : undefined };
  }

  async stats(endpoint: string): Promise<{ succeeded: number; failed: number; pending: number }> {
    const [row] = await this.db.read<Array<{ succeeded: number | string; failed: number | string; pending: number | string }>>(endpointSql.stats, [endpoint, endpoint]);
    return { succeeded: Number(row?.succeeded ?? 0), failed: Number(row?.failed ?? 0), pending: Number(row?.pending ?? 0) };
  }
}

function attemptJson(row: AttemptRow): Record<string, unknown> {
  return {
    event_id: Number(row.event_id),
    event_type: row.event_type,
    attempted_at: isoTime(row.attempted_at),
    status: row.succeeded === 1 ? 'succeeded' : 'failed',
    response_status: row.response_status,
    duration_ms: row.duration_ms,
    error: row.error,
    response_body: row.response_body,
  };
}
