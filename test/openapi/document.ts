import { readFileSync } from 'node:fs';
import { projectFile } from '../../src/paths.js';

/** The parts of an OpenAPI 3.1 document these tests read. */
export type Schema = Record<string, unknown>;

export interface Example {
  summary?: string;
  value: unknown;
}

export interface MediaType {
  schema: Schema;
  examples?: Record<string, Example>;
}

export interface Header {
  schema: Schema;
  /** A header the response always carries; others are checked when present. */
  required?: boolean;
}

export interface Response {
  description: string;
  headers?: Record<string, Header>;
  content?: Record<string, MediaType>;
}

export interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: Schema;
  example?: unknown;
}

export interface RequestBody {
  required?: boolean;
  content: Record<string, MediaType>;
}

interface Ref {
  $ref: string;
}

interface RawOperation {
  operationId: string;
  parameters?: Array<Parameter | Ref>;
  requestBody?: RequestBody | Ref;
  responses: Record<string, Response | Ref>;
}

type RawPathItem = { parameters?: Array<Parameter | Ref> } & Record<string, RawOperation | unknown>;

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, RawPathItem>;
  components: {
    schemas: Record<string, Schema>;
    parameters?: Record<string, Parameter>;
    requestBodies?: Record<string, RequestBody>;
    responses?: Record<string, Response>;
  };
}

/** One documented operation with every `$ref` to a parameter, body or response resolved. */
export interface Operation {
  operationId: string;
  method: string;
  path: string;
  parameters: Parameter[];
  requestBody?: RequestBody;
  /** Keyed as documented: `200`, `404`, `4XX`, ... */
  responses: Record<string, Response>;
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** One API description (openapi.json, or the one a server in a compatibility mode serves), its operations resolved. */
export interface ApiDescription {
  document: OpenApiDocument;
  operations: Operation[];
  operation(operationId: string): Operation;
}

export function describeApi(document: OpenApiDocument): ApiDescription {
  const resolve = <T>(value: T | Ref): T => {
    if (typeof value !== 'object' || value === null || !('$ref' in value)) return value as T;
    const target = value.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
    if (target === undefined) throw new Error(`unresolved $ref ${value.$ref}`);
    return resolve(target as T | Ref);
  };
  const resolveHeaders = (response: Response): Response =>
    response.headers
      ? { ...response, headers: Object.fromEntries(Object.entries(response.headers).map(([name, header]) => [name, resolve<Header>(header)])) }
      : response;
  const operations: Operation[] = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, raw]) => {
        const operation = raw as RawOperation;
        return {
          operationId: operation.operationId,
          method: method.toUpperCase(),
          path,
          parameters: [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p) => resolve(p)),
          ...(operation.requestBody ? { requestBody: resolve(operation.requestBody) } : {}),
          responses: Object.fromEntries(
            Object.entries(operation.responses).map(([status, response]) => [status, resolveHeaders(resolve(response))]),
          ),
        };
      }),
  );
  return {
    document,
    operations,
    operation(operationId) {
      const found = operations.find((candidate) => candidate.operationId === operationId);
      if (!found) throw new Error(`no documented operation ${operationId}`);
      return found;
    },
  };
}

/** openapi.json itself: the contract. */
export const contractApi = describeApi(JSON.parse(readFileSync(projectFile('openapi.json'), 'utf8')) as OpenApiDocument);
export const document = contractApi.document;
export const operations = contractApi.operations;
export const operation = (operationId: string): Operation => contractApi.operation(operationId);

/** The documented response key a status falls under: the exact code first, then its `NXX` range. */
export function responseKey(op: Operation, status: number): string | undefined {
  const exact = String(status);
  if (exact in op.responses) return exact;
  const range = `${exact[0]}XX`;
  return range in op.responses ? range : undefined;
}

/** `/api/users/{id}` as the router writes it: `/api/users/:id`. */
export function routerPath(openapiPath: string): string {
  return openapiPath.replace(/\{([^}]+)\}/g, ':$1');
}
