import type { IncomingHttpHeaders } from 'node:http';
import { HttpError } from '../../errors/http-error.js';
import { fieldMessages, messages } from '../../errors/messages.js';
import { isIdSegment } from '../../users/rules/id.js';

const badHeader = new HttpError(400, messages.lastEventIdNotInteger);
const badAfter = new HttpError(400, messages.afterNotInteger);
const repeatedAfter = new HttpError(400, fieldMessages.repeated('after'));

/**
 * The id after which a stream resumes: `Last-Event-ID` (what EventSource sends on reconnecting)
 * wins over `?after=` (the query's `after` values); undefined when neither is given (only events
 * from now on). Either must be a canonical non-negative integer (`0`, `42`; not `042`, `+1`, `1.0`
 * or an empty value).
 */
export function resumePoint(headers: IncomingHttpHeaders, after: readonly string[]): number | undefined {
  const header = headers['last-event-id'];
  if (header !== undefined) return eventId(typeof header === 'string' ? header : header.join(','), badHeader);
  if (after.length > 1) throw repeatedAfter;
  return after.length === 0 ? undefined : eventId(after[0]!, badAfter);
}

function eventId(text: string, refusal: HttpError): number {
  const id = Number(text);
  if (!isIdSegment(text) || !Number.isSafeInteger(id)) throw refusal;
  return id;
}
