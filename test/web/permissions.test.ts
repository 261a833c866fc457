import { createApp } from '../../api/app';
import type { AppDeps } from '../../api/context';
import { ACTIONS } from '../../web/src/lib/permissions';

/**
 * The workbench hides what a user may not do from a list of its actions and their routes; this holds that list to the
 * API's route table, so a route whose permission changes cannot leave a button offering it to the wrong user.
 */
test("every workbench action names a real route and that route's permission", () => {
  const { table } = createApp({ env: { corsOrigins: [] }, auth: {} } as unknown as AppDeps);
  const declared = new Map(table.routes.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r.permission ?? 'user']));
  const actual = Object.fromEntries(Object.entries(ACTIONS).map(([name, a]) => [name, declared.get(a.route) ?? `no route ${a.route}`]));
  expect(actual).toEqual(Object.fromEntries(Object.entries(ACTIONS).map(([name, a]) => [name, a.permission])));
  expect(Object.keys(actual).length).toBeGreaterThanOrEqual(10);
});
