import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { apiCompatModes } from '../../src/config/environment.js';
import type { ProtectedMode } from '../../src/docs/openapi-auth.js';
import { describeService, type ServedSettings } from '../../src/docs/openapi-modes.js';
import { document } from './document.js';

interface Served {
  info: { description: string };
  tags: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, unknown>>;
  webhooks?: Record<string, unknown>;
  components: { securitySchemes?: Record<string, unknown> };
}

/** Every setting that changes the served description, in every combination. */
const everySetting: ServedSettings[] = apiCompatModes.flatMap((mode) =>
  [false, true].flatMap((metricsOnApiPort) =>
    [undefined, 'writes', 'all'].flatMap((auth) =>
      [undefined, { requests: 100, windowSeconds: 10 }].flatMap((rateLimit) =>
        [false, true].map((events) => ({
          mode,
          metricsOnApiPort,
          events,
          ...(auth === undefined ? {} : { auth: auth as ProtectedMode }),
          ...(rateLimit === undefined ? {} : { rateLimit }),
        })),
      ),
    ),
  ),
);

const nameOf = ({ mode, metricsOnApiPort, auth, rateLimit, events }: ServedSettings): string =>
  [`API_COMPAT=${mode}`, `METRICS ${metricsOnApiPort ? 'on the API port' : 'off it'}`, `AUTH=${auth ?? 'off'}`, `RATE_LIMIT ${rateLimit ? 'on' : 'off'}`, `EVENTS=${events ? 'on' : 'off'}`].join(', ');

/** The text Swagger UI shows above and between the operations: the description and the tags'. */
const proseOf = (served: Served): string => [served.info.description, ...served.tags.map((tag) => tag.description ?? '')].join('\n\n');
const codeSpans = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
const METHOD_AND_PATH = /^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) (\/\S*)$/;

describe('the served description says only what its page shows, in every configuration', () => {
  for (const settings of everySetting) {
    test(nameOf(settings), () => {
      const served = describeService(structuredClone(document) as unknown as Record<string, unknown>, settings) as unknown as Served;
      const prose = proseOf(served);
      for (const span of codeSpans(prose)) {
        const operation = METHOD_AND_PATH.exec(span);
        if (operation) {
          assert.ok(served.paths[operation[2]!]?.[operation[1]!.toLowerCase()], `names ${span}, which the page does not show`);
        } else if (span.startsWith('/')) {
          assert.ok(Object.keys(served.paths).some((path) => path === span || path.startsWith(`${span}/`)), `names ${span}, which the page does not show`);
        }
      }
      if (served.webhooks === undefined) assert.doesNotMatch(prose, /webhook/i, 'webhooks are named only when the page has a Webhooks section');
      assert.equal(/\bAuthorize\b/.test(prose), served.components.securitySchemes !== undefined, '"Authorize" is named exactly when the page has the button');
      assert.equal(prose.includes(`API_COMPAT=${settings.mode}`), settings.mode !== 'contract', 'a compatibility mode is named exactly when the server runs in one');
      assert.equal(/`AUTH=(writes|all)`/.test(prose), settings.auth !== undefined, 'bearer tokens are named exactly when AUTH is on');
      assert.equal(prose.includes('`RATE_LIMIT`'), settings.rateLimit !== undefined, 'the rate limit is named exactly when RATE_LIMIT is on');
    });
  }
});
