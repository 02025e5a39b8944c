import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Handler } from '../http/context.js';
import type { Router } from '../http/router.js';
import { projectFile } from '../paths.js';
import { describeService, type ServedSettings } from './openapi-modes.js';
import { docsContentSecurityPolicy, indexHtml, initializerJs } from './page.js';
import { tryItOutDescription } from './try-it-out.js';
import { StaticFolder, sendStatic } from './static-files.js';

const swaggerUiFolder = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * `/apidocs`: Swagger UI served from the swagger-ui-dist package, reading `/apidocs/openapi.json`:
 * the description of this server as configured (see describeService, and `/openapi.json`), its
 * optional parameters without examples (tryItOutDescription).
 */
export function registerDocsRoutes(router: Router<Handler>, settings: ServedSettings = { mode: 'contract', metricsOnApiPort: false }): void {
  const contract = readFileSync(projectFile('openapi.json'));
  const asIs = settings.mode === 'contract' && settings.metricsOnApiPort && settings.events === true && settings.auth === undefined && settings.rateLimit === undefined;
  const served = describeService(JSON.parse(contract.toString('utf8')) as Record<string, unknown>, settings);
  const openapi = asIs ? contract : JSON.stringify(served, null, 2);
  const forThePage = JSON.stringify(tryItOutDescription(served));
  const assets = new StaticFolder(swaggerUiFolder, new Set(['index.html', 'swagger-initializer.js']));
  const pageHeaders = { 'Content-Security-Policy': docsContentSecurityPolicy, 'Cache-Control': 'no-cache' };
  const assetHeaders = { 'Cache-Control': 'public, max-age=3600' };

  const page: Handler = ({ res }) => sendStatic(res, 'text/html; charset=utf-8', indexHtml, pageHeaders);
  router.add('GET', '/apidocs', page);
  router.add('GET', '/apidocs/', page);
  router.add('GET', '/apidocs/index.html', page);
  router.add('GET', '/apidocs/swagger-initializer.js', ({ res }) =>
    sendStatic(res, 'text/javascript; charset=utf-8', initializerJs, { 'Cache-Control': 'no-cache' }),
  );
  router.add(
    'GET',
    '/apidocs/:file',
    ({ res, params }) => {
      const file = assets.get(params.file!)!;
      sendStatic(res, file.contentType, file.body, assetHeaders);
    },
    { file: (name) => assets.has(name) },
  );
  router.add('GET', '/apidocs/openapi.json', ({ res }) =>
    sendStatic(res, 'application/json; charset=utf-8', forThePage, { 'Cache-Control': 'no-cache' }),
  );
  router.add('GET', '/openapi.json', ({ res }) =>
    sendStatic(res, 'application/json; charset=utf-8', openapi, { 'Cache-Control': 'no-cache' }),
  );
  router.add('GET', '/docs', ({ res }) => {
    res.writeHead(301, { Location: '/apidocs/', 'Content-Length': 0, 'Access-Control-Allow-Origin': '*' });
    res.end();
  });
}
