import type { Handler } from '../../http/context.js';
import type { Router } from '../../http/router.js';
import type { Logger } from '../../log/logger.js';
import type { UserAccess } from '../../users/http/access.js';
import type { PasswordGate } from '../../users/http/password-gate.js';
import type { EventLog } from '../event-log.js';
import type { StreamLimits } from './event-stream.js';
import { defaultStreamLimits, EventStreams } from './event-streams.js';
import { streamMetrics, unobservedStreams } from './metrics.js';
import { streamRequest } from './stream-request.js';
import type { Registry } from '../../metrics/registry.js';

export interface EventStreamDeps {
  log: EventLog;
  logger: Logger;
  /** Let in as the list is (`pwd` and its guessing limit, or a token with users:read under AUTH=all), or with AUTH on by a token with events:read. */
  access: UserAccess;
  byPassword: PasswordGate;
  /** Tests only: shorter intervals and smaller bounds. */
  limits?: Partial<StreamLimits>;
  /** Where the streams' metrics are registered, when they are recorded. */
  metrics?: Registry;
}

/** `GET /api/users/events` (EVENTS=on): the change events as a resumable `text/event-stream`. */
export function registerEventStream(router: Router<Handler>, deps: EventStreamDeps): EventStreams {
  const observer = deps.metrics ? streamMetrics(deps.metrics, () => streams.size) : unobservedStreams;
  const streams: EventStreams = new EventStreams(deps.log, deps.logger, { ...defaultStreamLimits, ...deps.limits }, observer);
  // The query and the resume point are checked once the caller is let in: a refusal comes first, as on the list.
  const stream: Handler = ({ req, res, query }) => {
    const { after, types } = streamRequest(req.headers, query);
    return streams.serve(req, res, after, types);
  };
  router.add('GET', '/api/users/events', deps.access.events(deps.byPassword(stream), stream));
  return streams;
}
