// Statistics shared by the measuring scripts (scripts/bench.mjs, scripts/soak.mjs).

/** The median of the finite numbers in `xs` (the mean of the middle two for an even count); NaN for none. */
export function median(xs) {
  const s = [...xs].filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/**
 * Whether `ratio` meets `goal` (`'≤ 0.7'`, `'≥ 1.5'`), whether the client floor's ratio
 * `floorRatio` does (a goal the floor misses — a server whose every answer is canned — is out
 * of any server's reach with that client on that machine), and how many of the run's rounds
 * meet it (`roundRatios`, each round's own ratio: a median that meets a goal some rounds miss
 * says less than one every round meets, on a noisy machine). `{ met, floorMet, roundsMet,
 * rounds }` (`floorMet` null without a floor ratio; `rounds` counts the finite round ratios), or
 * null without a goal or a ratio.
 */
export function goalVerdict(goal, ratio, floorRatio = NaN, roundRatios = []) {
  const m = /^([≤≥])\s*([0-9.]+)$/.exec(goal ?? '');
  if (!m) return null;
  const bound = Number(m[2]);
  const meets = (r) => (Number.isFinite(r) ? (m[1] === '≤' ? r <= bound : r >= bound) : null);
  const met = meets(ratio);
  if (met === null) return null;
  const judged = roundRatios.map(meets).filter((v) => v !== null);
  return { met, floorMet: meets(floorRatio), roundsMet: judged.filter(Boolean).length, rounds: judged.length };
}
