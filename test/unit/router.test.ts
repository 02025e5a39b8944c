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
    { method: 'GET', path: '/api/users', handler: 'list', params: {}, route: '/api/users' },
    { method: 'POST', path: '/api/users', handler: 'create', params: {}, route: '/api/users' },
    { method: 'GET', path: '/api/users/42', handler: 'read', params: { id: '42' }, route: '/api/users/{id}' },
    { method: 'PUT', path: '/api/users/7', handler: 'update', params: { id: '7' }, route: '/api/users/{id}' },
    { method: 'DELETE', path: '/api/users/7', handler: 'delete', params: { id: '7' }, route: '/api/users/{id}' },
    { method: 'HEAD', path: '/api/users/7', handler: 'read', params: { id: '7' }, route: '/api/users/{id}' },
    { method: 'HEAD', path: '/api/users', handler: 'list', params: {}, route: '/api/users' },
    { method: 'GET', path: '/files/a.css', handler: 'file', params: { name: 'a.css' }, route: '/files/{name}' },
  ];
  for (const { method, path, handler, params, route } of found) {
    test(`${method} ${path} -> ${handler} with ${JSON.stringify(params)}, route template ${route}`, () => {
      assert.deepEqual(router.match(method, path), { kind: 'found', handler, params, route });
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
    { method: 'PATCH', path: '/api/users/1', allow: 'GET, HEAD, PUT, DELETE, OPTIONS', route: '/api/users/{id}' },
    { method: 'POST', path: '/api/users/1', allow: 'GET, HEAD, PUT, DELETE, OPTIONS', route: '/api/users/{id}' },
    { method: 'DELETE', path: '/api/users', allow: 'GET, HEAD, POST, OPTIONS', route: '/api/users' },
    { method: 'POST', path: '/files/x', allow: 'GET, HEAD, OPTIONS', route: '/files/{name}' },
  ];
  for (const { method, path, allow, route } of notAllowed) {
    test(`${method} ${path} -> method not allowed, Allow: ${allow}`, () => {
      assert.deepEqual(router.match(method, path), { kind: 'method-not-allowed', allow, route });
    });
  }

  test('an exact path wins over a pattern that would also match', () => {
    const router = new Router<string>().add('GET', '/a/:x', 'pattern').add('GET', '/a/b', 'exact');
    assert.deepEqual(router.match('GET', '/a/b'), { kind: 'found', handler: 'exact', params: {}, route: '/a/b' });
    assert.deepEqual(router.match('GET', '/a/c'), { kind: 'found', handler: 'pattern', params: { x: 'c' }, route: '/a/{x}' });
  });

  test('a parameter without a rule matches any non-empty segment', () => {
    const router = new Router<string>().add('GET', '/a/:x', 'pattern');
    assert.equal(router.match('GET', '/a/').kind, 'not-found');
    assert.equal(router.match('GET', '/a/%20').kind, 'found');
  });
});

describe('Router.lookup', () => {
  const router = build();
  test('the methods and route template of an exact path, of a pattern path, and undefined for no route', () => {
    assert.equal(router.lookup('/api/users')?.allow, 'GET, HEAD, POST, OPTIONS');
    assert.equal(router.lookup('/api/users')?.route, '/api/users');
    assert.equal(router.lookup('/api/users/5')?.allow, 'GET, HEAD, PUT, DELETE, OPTIONS');
    assert.equal(router.lookup('/api/users/5')?.route, '/api/users/{id}');
    assert.equal(router.lookup('/api/users/x'), undefined);
    assert.equal(router.lookup('/elsewhere'), undefined);
  });
});
