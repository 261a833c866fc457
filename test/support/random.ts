/** sfc32 seeded from a fixed state: deterministic uniforms in (0, 1), so engine tests reproduce exactly. */
export function rng(seed: number): () => number {
  let a = 0x9e3779b9 ^ seed;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = 1;
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = ((c << 21) | (c >>> 11)) + t;
    c |= 0;
    return ((t >>> 0) + 0.5) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

/** A standard normal draw (Box–Muller) from two uniforms of `u`. */
export const normal = (u: () => number): number => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
