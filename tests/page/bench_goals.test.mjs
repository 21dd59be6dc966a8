// The goal verdicts `make bench` prints under its table (scripts/lib/stats.mjs goalVerdict):
// which goals a run meets, and which no server could meet there (the client floor misses them).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goalVerdict } from '../../scripts/lib/stats.mjs';

test('a ratio meets an upper or a lower bound, and the floor is judged by the same bound', () => {
  assert.deepEqual(goalVerdict('≤ 0.7', 0.69, 0.5), { met: true, floorMet: true });
  assert.deepEqual(goalVerdict('≤ 0.7', 0.7, 0.5), { met: true, floorMet: true });
  assert.deepEqual(goalVerdict('≤ 0.7', 0.97, 0.82), { met: false, floorMet: false });
  assert.deepEqual(goalVerdict('≥ 1.5', 1.32, 1.57), { met: false, floorMet: true });
  assert.deepEqual(goalVerdict('≥ 1.5', 1.97, 2.98), { met: true, floorMet: true });
  assert.deepEqual(goalVerdict('≤ 0.01', 0.013), { met: false, floorMet: null }, 'no floor for the figure');
});

test('no verdict without a goal or a ratio', () => {
  assert.equal(goalVerdict(undefined, 0.5), null);
  assert.equal(goalVerdict('', 0.5), null);
  assert.equal(goalVerdict('≤ 0.5', NaN), null);
  assert.equal(goalVerdict('about half', 0.5), null);
});
