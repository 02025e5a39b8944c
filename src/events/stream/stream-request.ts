import type { IncomingHttpHeaders } from 'node:http';
import { HttpError } from '../../errors/http-error.js';
import { fieldMessages, streamMessages } from '../../errors/messages.js';
import { resumePoint } from './resume-point.js';
import { TypeFilter } from './type-filter.js';

/** Every query parameter the stream takes: the list's password, the resume point, the event types. */
const PARAMETERS: readonly string[] = ['pwd', 'after', 'types'];

const repeatedTypes = new HttpError(400, fieldMessages.repeated('types'));

/** What a stream request asks for. */
export interface StreamRequest {
  /** The id it resumes after; undefined: from now on. */
  after: number | undefined;
  /** The types it is sent; undefined: every type. */
  types: TypeFilter | undefined;
}

/**
 * The stream request of a query (parsed here once) and the request's `Last-Event-ID`. A parameter
 * the stream does not take is 400, naming it, rather than ignored: a misspelt `types` would
 * otherwise send every event, and a misspelt `after` start from now.
 */
export function streamRequest(headers: IncomingHttpHeaders, query: string): StreamRequest {
  const params = new URLSearchParams(query);
  for (const name of params.keys()) if (!PARAMETERS.includes(name)) throw new HttpError(400, streamMessages.unknownParameter(name, PARAMETERS));
  const types = params.getAll('types');
  if (types.length > 1) throw repeatedTypes;
  return {
    after: resumePoint(headers, params.getAll('after')),
    types: types.length === 0 ? undefined : TypeFilter.parse(types[0]!),
  };
}
