/**
 * Offline inventory optimisation of one instance, through the same engines as the meio step (domain/inventory/). No
 * database, no Temporal.
 *
 *   npm run inventory -- <model> --input instance.json [--output out.json]
 *
 * Models: eoq, wagner-whitin, rq, ss, base-stock, gsm, metric, clark-scarf, meio. The instance is one JSON object whose
 * fields depend on the model (scripts/inventory/schemas.ts; docs/INVENTORY.md has each format with a worked example).
 * The result — the policy, its cost and what the model says about it — is written as JSON to --output, or stdout.
 *
 * Exit codes: 0 done; 1 bad input (unknown model, unreadable or invalid JSON, a field out of range: the message names
 * the field); 2 usage error.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { runModel } from './inventory/models';
import { isModelName, MODEL_NAMES } from './inventory/schemas';
import { InputError, validateInstance } from './inventory/validate';

const USAGE = `usage: npm run inventory -- <model> --input <instance.json> [--output <result.json>]
models: ${MODEL_NAMES.join(', ')} (docs/INVENTORY.md describes each instance format)`;

class UsageError extends Error {}

function runCli(argv: string[]): { json: string; output?: string } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { input: { type: 'string' }, output: { type: 'string' }, help: { type: 'boolean' } } });
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) throw new UsageError(USAGE);
  if (positionals.length !== 1) throw new UsageError(`${positionals.length ? `one model expected, got ${positionals.join(' ')}` : 'the model is missing'}\n${USAGE}`);
  const model = positionals[0];
  if (!isModelName(model)) throw new InputError(`unknown model '${model}' (known: ${MODEL_NAMES.join(', ')})`);
  if (!values.input) throw new UsageError(`--input <instance.json> is required\n${USAGE}`);
  let text: string;
  try {
    text = fs.readFileSync(values.input, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read ${values.input}: ${(e as Error).message}`);
  }
  let instance: unknown;
  try {
    instance = JSON.parse(text);
  } catch (e) {
    throw new InputError(`${values.input} is not valid JSON: ${(e as Error).message}`);
  }
  validateInstance(model, instance);
  return { json: `${JSON.stringify(runModel(model, instance), null, 2)}\n`, output: values.output };
}

function main(): void {
  try {
    const { json, output } = runCli(process.argv.slice(2));
    if (output) fs.writeFileSync(output, json);
    else process.stdout.write(json);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    if (e instanceof InputError) {
      process.stderr.write(`error: ${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
}

main();
