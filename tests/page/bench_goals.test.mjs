// The goal verdicts `make bench` prints under its table (scripts/lib/stats.mjs goalVerdict):
// which goals a run meets, in how many of its rounds, and which no server could meet there (the
// client floor misses them).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goalVerdict } from '../../scripts/lib/stats.mjs';

test('a ratio meets an upper or a lower bound, and the floor is judged by the same bound', () => {
  const verdict = (...a) => {
    const { met, floorMet } = goalVerdict(...a);
    return { met, floorMet };
  };
  assert.deepEqual(verdict('≤ 0.7', 0.69, 0.5), { met: true, floorMet: true });
  assert.deepEqual(verdict('≤ 0.7', 0.7, 0.5), { met: true, floorMet: true });
  assert.deepEqual(verdict('≤ 0.7', 0.97, 0.82), { met: false, floorMet: false });
  assert.deepEqual(verdict('≥ 1.5', 1.32, 1.57), { met: false, floorMet: true });
  assert.deepEqual(verdict('≥ 1.5', 1.97, 2.98), { met: true, floorMet: true });
  assert.deepEqual(verdict('≤ 0.01', 0.013), { met: false, floorMet: null }, 'no floor for the figure');
});

test('the rounds that meet the goal are counted by the same bound, a round without a ratio left out', () => {
  // This machine's concurrent calls: a median over the goal that not every round reaches.
  const v = goalVerdict('≥ 1.5', 1.76, 2.28, [1.21, 1.76, 2.05, 1.5, 1.49, NaN, 1.9]);
  assert.deepEqual(v, { met: true, floorMet: true, roundsMet: 4, rounds: 6 });
  assert.deepEqual(goalVerdict('≤ 0.7', 0.76, 0.52, [0.7, 0.69, 0.8]), { met: false, floorMet: true, roundsMet: 2, rounds: 3 });
  const none = goalVerdict('≤ 0.5', 0.31);
  assert.equal(none.rounds, 0, 'no round ratios given');
  assert.equal(none.roundsMet, 0);
});

test('no verdict without a goal or a ratio', () => {
  assert.equal(goalVerdict(undefined, 0.5), null);
  assert.equal(goalVerdict('', 0.5), null);
  assert.equal(goalVerdict('≤ 0.5', NaN), null);
  assert.equal(goalVerdict('about half', 0.5), null);
});
