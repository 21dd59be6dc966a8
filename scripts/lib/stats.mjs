// Statistics shared by the measuring scripts (scripts/bench.mjs, scripts/soak.mjs).

/** The median of the finite numbers in `xs` (the mean of the middle two for an even count); NaN for none. */
export function median(xs) {
  const s = [...xs].filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
