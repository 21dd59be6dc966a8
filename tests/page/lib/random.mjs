// Deterministic pseudo-random numbers for the tests that make up data (xorshift32).

/** A stream of pseudo-random 32-bit numbers from `seed` (not 0): the same stream every run. */
export function random(seed) {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>>= 0);
  };
}
