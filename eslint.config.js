// The layers of decisions/0001-architecture.md, enforced: core ← adapters (timeline, sheets, state, config, http) ← engine ← cli.
// An import that points up a layer, into the counterparts or the tests, fails `npm test`.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

const never = (group, message) => ({ group, message })
const outsideSrc = [
  never(
    ['**/counterparts/**', '**/test/**', '**/bench/**', '**/scripts/**'],
    'src never imports the counterparts, tests, bench or scripts: they are not shipped.',
  ),
]
const upper = {
  engine: never(
    ['../engine/*', '../../engine/*'],
    'An adapter never imports the engine: the engine wires adapters, not the other way round.',
  ),
  cli: never(
    ['../cli/*', '../../cli/*', '../../cli/**', '../cli/**'],
    'Only the CLI knows the CLI: pass what the lower layer needs as a parameter.',
  ),
}
const adapters = ['timeline', 'sheets', 'state', 'config', 'http']
const fileSystem = never(
  ['node:fs', 'node:fs/*', 'fs', 'fs/*'],
  'The file system is the business of state/, config/ and the workbook backend.',
)

/** `no-restricted-imports` for files of one layer: the groups it may not reach. */
const restrict = (files, groups) => ({ files, rules: { 'no-restricted-imports': ['error', { patterns: groups }] } })

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2024, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      // Control characters are matched on purpose: cell text is checked and cleaned of them.
      'no-control-regex': 'off',
    },
  },
  // The bin wrapper is plain JavaScript run by Node.
  { files: ['bin/**/*.js'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
  // oidc-provider ships no types (counterparts/timeline/oidc-provider.d.ts declares it loosely).
  { files: ['counterparts/timeline/oidc.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  // The fuzzer feeds numbers that lose precision on purpose (2^53 + 1): that is what it tests.
  { files: ['scripts/fuzz-rows.ts'], rules: { 'no-loss-of-precision': 'off' } },
  restrict(
    ['src/core/**'],
    [
      ...outsideSrc,
      never(['../*/**'], 'core imports nothing of ours but errors.ts: it is the bottom layer (domain types and pure decisions).'),
      never(['node:*'], 'core is pure: no I/O, no Node modules.'),
    ],
  ),
  ...adapters.map((a) =>
    restrict([`src/${a}/**`], [...outsideSrc, upper.engine, upper.cli, ...(a === 'state' || a === 'config' ? [] : [fileSystem])]),
  ),
  // The workbook backend is a file format: it reads and writes its file itself.
  restrict(['src/sheets/workbook/**'], [...outsideSrc, upper.engine, upper.cli]),
  restrict(['src/engine/**'], [...outsideSrc, upper.cli, fileSystem]),
  restrict(['src/cli/**', 'src/errors.ts'], [...outsideSrc, fileSystem]),
)
