import { HttpError } from '../../errors/http-error.js';
import { messages } from '../../errors/messages.js';
import type { EventType } from '../event-log.js';

/** Every event type, in the order the docs list them. */
export const eventTypes: readonly EventType[] = ['user.created', 'user.updated', 'user.deleted'];

const invalidTypes = new HttpError(400, messages.eventTypesInvalid);

/**
 * The event types a stream sends (`?types=`) when it sends only some. Streams asking for the same
 * types share one filter (there are six), so what the window builds for one of them serves all
 * (`key` names it).
 */
export class TypeFilter {
  private static readonly byKey = new Map<string, TypeFilter>();
  /** The types, comma-separated, in the order of eventTypes. */
  readonly key: string;

  private constructor(private readonly types: ReadonlySet<EventType>) {
    this.key = eventTypes.filter((type) => types.has(type)).join(',');
  }

  /**
   * The filter of `types=` as given: a comma-separated list of event types, each at least once;
   * undefined when it names them all (the stream sends everything, as without it). An empty list,
   * an empty item or anything else is 400.
   */
  static parse(value: string): TypeFilter | undefined {
    const types = new Set<EventType>();
    for (const item of value.split(',')) {
      if (!(eventTypes as readonly string[]).includes(item)) throw invalidTypes;
      types.add(item as EventType);
    }
    if (types.size === eventTypes.length) return undefined;
    const key = eventTypes.filter((type) => types.has(type)).join(',');
    let filter = TypeFilter.byKey.get(key);
    if (filter === undefined) TypeFilter.byKey.set(key, (filter = new TypeFilter(types)));
    return filter;
  }

  /** Whether the stream sends events of this type. */
  has(type: EventType): boolean {
    return this.types.has(type);
  }
}
