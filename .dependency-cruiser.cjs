/**
 * The import rules of docs/architecture.md, enforced by `npm run check`. Product folders depend one
 * way: contract/ ← db/ ← functions/ ← infra/, cli/ (bench/ and test/ sit on top of everything);
 * client/ stands apart and imports none of them. local-aws/ (stand-ins of AWS services) serves the
 * tests, the bench and `npm start`'s optional stage, never the product.
 */
const product = '^(contract|db|functions|infra|cli|client|local-aws)/';
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'No file imports itself through others: a cycle is two ideas that want to be one, or a third.',
      severity: 'error',
      from: { path: product },
      to: { circular: true },
    },
    {
      name: 'contract-imports-nothing',
      comment: 'contract/ is the API as data: no other project folder, no database driver or ORM.',
      severity: 'error',
      from: { path: '^contract/' },
      to: {
        path: [
          '^(db|functions|infra|cli|bench|test|client)/',
          'node_modules/(drizzle-orm|postgres|@electric-sql)/',
        ],
      },
    },
    {
      name: 'db-imports-only-contract',
      comment: 'db/ may use the contract (types, enum values), never what sits above it.',
      severity: 'error',
      from: { path: '^db/' },
      to: { path: '^(functions|infra|cli|bench|test|client)/' },
    },
    {
      name: 'functions-below-infra-and-cli',
      comment: 'Handlers never import the stack, the local gateway or the CLIs.',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: '^(infra|cli|bench|test|client)/' },
    },
    {
      name: 'functions-through-the-data-layer',
      comment: 'Handlers reach the database through db/ only: no ORM or driver types in a handler.',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: 'node_modules/(drizzle-orm|postgres|@electric-sql)/' },
    },
    {
      name: 'infra-not-cli',
      comment: 'The local server and the CLIs share code through db/ or functions/, not each other.',
      severity: 'error',
      from: { path: '^infra/' },
      to: { path: '^(cli|bench|test)/' },
    },
    {
      name: 'product-not-local-aws',
      comment:
        'The AWS stand-ins (local-aws/) are for tests, the bench and the stage `npm start` plays when ' +
        'asked (infra/local/server.ts loads them on demand): no deployed or CLI code imports them.',
      severity: 'error',
      from: { path: '^(contract|db|functions|infra|cli|client)/', pathNot: '^infra/local/server\\.ts$' },
      to: { path: '^local-aws/' },
    },
    {
      name: 'local-aws-not-cli',
      comment: 'The stand-ins play AWS for the product (its functions, the stage names), not for the CLIs.',
      severity: 'error',
      from: { path: '^local-aws/' },
      to: { path: '^(cli|bench|test)/' },
    },
    {
      name: 'cli-not-bench-or-test',
      severity: 'error',
      from: { path: '^cli/' },
      to: { path: '^(bench|test)/' },
    },
    {
      name: 'client-imports-nothing',
      comment:
        'client/ stands alone (it can be copied or published): its types are generated from ' +
        'docs/openapi.json into client/ itself, so it imports no other project folder.',
      severity: 'error',
      from: { path: '^client/' },
      to: { path: '^(contract|db|functions|infra|cli|bench|test|docs)/' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that does not resolve is a typo or a missing dependency.',
      severity: 'error',
      from: { path: product },
      to: { couldNotResolve: true, pathNot: '^aws-lambda$' }, // types only, from @types/aws-lambda
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
    // client/dist: the client package's build output (npm run client:pack), not source.
    exclude: { path: '(^|/)(cdk\\.out|\\.data)/|^client/dist/' },
  },
};
