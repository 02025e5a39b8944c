import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { summarise } from '../../bench/webhook-endpoints.js';

describe('the figures of --mode webhooks --endpoints', () => {
  test('a create counts from its 201 to the last endpoint to acknowledge it; a repeat to one endpoint is a duplicate, not a delivery', () => {
    const answered = new Map([[1, 1000], [2, 2000]]);
    const arrivals = [
      { path: '/hooks/0', userId: 1, at: 1100 },
      { path: '/hooks/1', userId: 1, at: 1300 },
      { path: '/hooks/0', userId: 2, at: 2050 },
      { path: '/hooks/1', userId: 2, at: 2100 },
      { path: '/hooks/1', userId: 2, at: 2400 },
    ];
    const figures = summarise(2, answered, arrivals, 40, 2);
    assert.equal(figures.deliveries, 4);
    assert.equal(figures.duplicates, 1);
    assert.equal(figures.lastAckP50Ms, 400, 'the repeat came last for user 2: 2400 - 2000');
    assert.equal(figures.lastAckP99Ms, 400);
    assert.equal(figures.statementsPerDelivery, 10);
    assert.equal(figures.deliveriesPerSecond, 2);
  });
});
