import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Router } from '../../src/http/router.js';

function build(): Router<string> {
  const isDigits = (segment: string) => /^\d+$/.test(segment);
  return new Router<string>()
    .add('GET', '/api/users', 'list')
    .add('POST', '/api/users', 'create')
    .add('GET', '/api/users/:id', 'read', { id: isDigits })
    .add('PUT', '/api/users/:id', 'update', { id: isDigits })
    .add('DELETE', '/api/users/:id', 'delete', { id: isDigits })
    .add('GET', '/files/:name', 'file');
}

describe('Router.match', () => {
  const router = build();
  const found = [
    { method: 'GET', path: '/api/users', handler: 'list', params: {} },
    { method: 'POST', path: '/api/users', handler: 'create', params: {} },
    { method: 'GET', path: '/api/users/42', handler: 'read', params: { id: '42' } },
    { method: 'PUT', path: '/api/users/7', handler: 'update', params: { id: '7' } },
    { method: 'DELETE', path: '/api/users/7', handler: 'delete', params: { id: '7' } },
    { method: 'HEAD', path: '/api/users/7', handler: 'read', params: { id: '7' } },
    { method: 'HEAD', path: '/api/users', handler: 'list', params: {} },
    { method: 'GET', path: '/files/a.css', handler: 'file', params: { name: 'a.css' } },
  ];
  for (const { method, path, handler, params } of found) {
    test(`${method} ${path} -> ${handler} with ${JSON.stringify(params)}`, () => {
      assert.deepEqual(router.match(method, path), { kind: 'found', handler, params });
    });
  }

  const notFound = [
    ['GET', '/api/users/abc'],
    ['GET', '/api/users/'],
    ['GET', '/api/users/1/'],
    ['GET', '/api/users/1/x'],
    ['GET', '/api'],
    ['GET', '/files/'],
    ['GET', '/nope'],
    ['PATCH', '/api/users/abc'],
  ];
  for (const [method, path] of notFound) {
    test(`${method} ${path} -> not found (a failing parameter rule means no route)`, () => {
      assert.deepEqual(router.match(method!, path!), { kind: 'not-found' });
    });
  }

  const notAllowed = [
    { method: 'PATCH', path: '/api/users/1', allow: 'GET, HEAD, PUT, DELETE, OPTIONS' },
    { method: 'POST', path: '/api/users/1', allow: 'GET, HEAD, PUT, DELETE, OPTIONS' },
    { method: 'DELETE', path: '/api/users', allow: 'GET, HEAD, POST, OPTIONS' },
    { method: 'POST', path: '/files/x', allow: 'GET, HEAD, OPTIONS' },
  ];
  for (const { method, path, allow } of notAllowed) {
    test(`${method} ${path} -> method not allowed, Allow: ${allow}`, () => {
      assert.deepEqual(router.match(method, path), { kind: 'method-not-allowed', allow });
    });
  }

  test('an exact path wins over a pattern that would also match', () => {
    const router = new Router<string>().add('GET', '/a/:x', 'pattern').add('GET', '/a/b', 'exact');
    assert.deepEqual(router.match('GET', '/a/b'), { kind: 'found', handler: 'exact', params: {} });
    assert.deepEqual(router.match('GET', '/a/c'), { kind: 'found', handler: 'pattern', params: { x: 'c' } });
  });

  test('a parameter without a rule matches any non-empty segment', () => {
    const router = new Router<string>().add('GET', '/a/:x', 'pattern');
    assert.equal(router.match('GET', '/a/').kind, 'not-found');
    assert.equal(router.match('GET', '/a/%20').kind, 'found');
  });
});

describe('Router.allowedMethods', () => {
  const router = build();
  test('the methods of an exact path, of a pattern path, and undefined for no route', () => {
    assert.equal(router.allowedMethods('/api/users'), 'GET, HEAD, POST, OPTIONS');
    assert.equal(router.allowedMethods('/api/users/5'), 'GET, HEAD, PUT, DELETE, OPTIONS');
    assert.equal(router.allowedMethods('/api/users/x'), undefined);
    assert.equal(router.allowedMethods('/elsewhere'), undefined);
  });
});
