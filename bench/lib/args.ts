/** The few option readers the benches share (they take `--name value` pairs and flags, nothing fancier). */

/** The value after `--name`, undefined when the option is absent; an option without a value is refused. */
export function optionValue(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  const v = argv[i + 1];
  if (v === undefined || v.startsWith('--')) throw new Error(`${name} needs a value`);
  return v;
}

/** A positive integer (underscores allowed: 100_000), or a refusal naming the option. */
export function positiveInt(name: string, v: string): number {
  const n = Number(v.trim().replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}: '${v}' is not a positive integer`);
  return n;
}
