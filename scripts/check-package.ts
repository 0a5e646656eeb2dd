/**
 * `npm run check-package [-- --node <path> …]`: the package as an operator gets it. Packs the tarball (which
 * builds dist/), checks what it carries, installs it globally into a temporary prefix, and runs the installed
 * `timeline-sheets` by name — `--version`, `--help`, an export against the reference server into a local
 * workbook, an export into the Sheets fake and an import of a manager's edit from it, `doctor` (as that
 * account, and as a reader account), an export into the fake signed in with a service-account key file, and the
 * cloud sign-in, NTLM, metadata-server sign-in and unexpected-error e2e files with their CLI runs pointed at the installed bin
 * (TIMELINE_SHEETS_E2E_CLI, test/e2e/cli.ts) — once for each Node given (default: the Node running this script, the project's Node 24).
 * The e2e files run under vitest on the project's Node (the counterparts need its type stripping), their CLI runs
 * on the Node given.
 *
 * The installed command starts with `#!/usr/bin/env node`, so it runs on whatever `node` comes first on PATH;
 * each check puts the chosen Node first, so a CI machine whose own `node` is older still tests 22 or 24.
 */
import { spawn } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createManager } from '../counterparts/sheets/manager.ts'
import { startSheetsFake } from '../counterparts/sheets/server.ts'
import { startReferenceServer } from '../counterparts/timeline/server.ts'
import { columnLetters } from '../src/core/columns.ts'
import { createWorkbookSpreadsheet } from '../src/sheets/workbook/backend.ts'
import { CLI_ENV, CLI_NODE_ENV } from '../test/e2e/cli.ts'
import { BUNDLED_PACKAGES } from './bundled-packages.ts'
import { installArgs, packArgs } from './package-steps.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({ options: { node: { type: 'string', multiple: true }, keep: { type: 'boolean', default: false } } })
const nodes = values.node?.length ? values.node.map((n) => path.resolve(n)) : [process.execPath]
const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string }

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs a command to its end without blocking this process: the reference server answers from here. */
function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? root, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 600_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

function check(ok: unknown, what: string, detail?: Run): void {
  if (ok) {
    process.stdout.write(`  ok   ${what}\n`)
    return
  }
  process.stdout.write(`  FAIL ${what}\n`)
  if (detail)
    process.stdout.write(`       exit ${detail.code}\n       stdout: ${detail.stdout.trim()}\n       stderr: ${detail.stderr.trim()}\n`)
  failures++
}

/** The `iss` of a JWT-bearer assertion: the service account that signed it. */
function issuerOf(assertion: string | undefined): unknown {
  try {
    return (JSON.parse(Buffer.from(assertion?.split('.')[1] ?? '', 'base64url').toString()) as { iss?: unknown }).iss
  } catch {
    return undefined
  }
}

/**
 * The e2e files of the sign-ins only they run, run again against the installed package, and the report of an
 * unexpected error, whose stack the installed command maps back to src files (dist/'s source maps).
 */
const E2E_FILES = [
  'test/e2e/cloud-login.e2e.test.ts',
  'test/e2e/ntlm.e2e.test.ts',
  // google-auth-library's Compute client and gcp-metadata, loaded lazily from the bundle's adc chunk.
  'test/e2e/export-google-metadata-server.e2e.test.ts',
  'test/cli/internal-error-report.test.ts',
]

/** What vitest's json reporter writes, as far as it is read here. */
interface VitestJson {
  numTotalTests: number
  numPassedTests: number
  testResults: { name: string }[]
}

let failures = 0
const work = await mkdtemp(path.join(tmpdir(), 'timeline-sheets-package-'))
try {
  process.stdout.write(`Packing ${pkg.name}@${pkg.version} (prepack builds dist/) into ${work}\n`)
  const packed = await run('npm', packArgs(work))
  if (packed.code !== 0) throw new Error(`npm pack failed (exit ${packed.code}):\n${packed.stderr}`)
  // With --json npm writes the prepack script's output to stderr, and only the listing to stdout.
  const [info] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }]
  const files = info.files.map((f) => f.path)
  check(
    ['dist/cli/main.js', 'bin/timeline-sheets.js', 'config.schema.json', 'config.example.json', 'dist/THIRD-PARTY-NOTICES.md'].every((f) =>
      files.includes(f),
    ),
    "the tarball holds dist/cli/main.js, the bin, the config schema, the example config and the bundled packages' licences",
  )
  const stray = files.filter((f) => /(^|\/)(test|counterparts|src|bench|scripts)\/|\.test\.|\.ts$|\.xlsx|\.bak$/.test(f))
  check(stray.length === 0, `the tarball holds no sources, tests, counterparts or data${stray.length ? `: ${stray.join(', ')}` : ''}`)
  const tarball = path.join(work, info.filename)

  const prefix = path.join(work, 'prefix')
  process.stdout.write(`Installing ${info.filename} into ${prefix}\n`)
  const installed = await run('npm', installArgs(tarball, prefix))
  if (installed.code !== 0) throw new Error(`npm install of the tarball failed (exit ${installed.code}):\n${installed.stderr}`)

  // The bundled packages travel inside dist/ with their licences, and npm installs no second copy of them.
  const installedRoot = path.join(prefix, 'lib', 'node_modules', pkg.name)
  const notices = await readFile(path.join(installedRoot, 'dist', 'THIRD-PARTY-NOTICES.md'), 'utf8')
  const unnamed = BUNDLED_PACKAGES.filter((name) => !notices.includes(`## ${name} `))
  check(
    unnamed.length === 0,
    `dist/THIRD-PARTY-NOTICES.md carries the licence of every bundled package${unnamed.length ? `; not of ${unnamed.join(', ')}` : ''}`,
  )
  const installedTwice = BUNDLED_PACKAGES.filter((name) => existsSync(path.join(installedRoot, 'node_modules', name)))
  check(
    installedTwice.length === 0,
    `npm installed none of the bundled packages again${installedTwice.length ? `; it did ${installedTwice.join(', ')}` : ''}`,
  )

  const server = await startReferenceServer({
    data: { users: 3, days: 27, startDate: '2026-10-15', timeZones: ['Europe/Berlin'], otherTimelines: false },
  })
  const sheets = await startSheetsFake()
  const manager = createManager(sheets.store)
  // A failed export may leave no tab behind: then the check says so, with the run's output, instead of a stack.
  const activitiesIn = (spreadsheetId: string) => {
    try {
      return manager.readTab(spreadsheetId, 'Activities')
    } catch {
      return []
    }
  }
  // A service account as Google has it: the fake knows the public key, the key file holds the private one.
  const serviceAccount = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const serviceAccountEmail = 'timeline-sheets-check@timeline-sheets-check.iam.gserviceaccount.com'
  sheets.store.auth.registerServiceAccount({
    clientEmail: serviceAccountEmail,
    publicKey: serviceAccount.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  })
  try {
    for (const [i, node] of nodes.entries()) {
      // Only this Node and the installed command come first on PATH; npm's own bin folder stays after them.
      const nodeBin = path.join(work, `node-${i}`)
      await mkdir(nodeBin)
      await symlink(node, path.join(nodeBin, 'node'))
      const env = { ...process.env, PATH: [nodeBin, path.join(prefix, 'bin'), process.env.PATH].join(path.delimiter) }
      const cli = (args: string[], extra: NodeJS.ProcessEnv = {}, cwd = work) =>
        run('timeline-sheets', args, { env: { ...env, ...extra }, cwd })
      const nodeVersion = (await run('node', ['--version'], { env })).stdout.trim()
      process.stdout.write(`The installed timeline-sheets on Node ${nodeVersion} (${node})\n`)

      const version = await cli(['--version'])
      check(version.code === 0 && version.stdout.trim() === pkg.version, `timeline-sheets --version prints ${pkg.version}`, version)
      const help = await cli(['--help'])
      check(
        help.code === 0 && help.stdout.includes('Usage: timeline-sheets') && help.stdout.includes('export'),
        'timeline-sheets --help',
        help,
      )
      // Without the global install on PATH, so that it is npx's own copy that answers.
      const npxEnv = { ...process.env, PATH: [nodeBin, process.env.PATH].join(path.delimiter) }
      const npx = await run('npm', ['exec', '--yes', '--prefer-offline', '--package', tarball, '--', 'timeline-sheets', '--help'], {
        env: npxEnv,
        cwd: work,
      })
      check(npx.code === 0 && npx.stdout.includes('Usage: timeline-sheets'), 'npx --package <tarball> timeline-sheets --help', npx)

      const folder = path.join(work, `export-${i}`)
      await mkdir(folder)
      const config = path.join(folder, 'timeline-sheets.json')
      await writeFile(
        config,
        JSON.stringify({
          timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
          stateDir: 'state',
          targets: [
            { name: 'team', spreadsheet: { kind: 'workbook', path: 'team.xlsx' }, timeZone: 'Europe/Berlin', window: { days: 21 } },
          ],
        }),
      )
      const password = { TIMELINE_PASSWORD: server.credentials.transfer!.password }
      const exported = await cli(['export', '--config', config, '--now', '2026-11-10T11:00:00Z', '--json'], password, folder)
      type Summary = { result: string; counts: { created: number } }
      const summary = exported.code === 0 ? (JSON.parse(exported.stdout) as { runs: Summary[] }).runs[0] : undefined
      check(
        summary?.result === 'success' && summary.counts.created > 0,
        `export into a workbook: ${summary?.counts.created ?? 0} rows`,
        exported,
      )
      const sheet = await createWorkbookSpreadsheet({ path: path.join(folder, 'team.xlsx') }).read(['Activities'])
      check(sheet.tabs['Activities']?.rows.length === summary?.counts.created, 'the workbook holds the rows the export reported')

      // doctor after that export: every check passes (or warns) and it exits 0; a reader account exits 6.
      type DoctorJson = { checks: { name: string; status: string }[]; exitCode: number }
      const doctor = await cli(['doctor', '--config', config, '--now', '2026-11-10T11:00:00Z', '--json'], password, folder)
      const report = doctor.code === 0 ? (JSON.parse(doctor.stdout) as DoctorJson) : undefined
      const failed = report?.checks.filter((c) => c.status === 'fail' || c.status === 'skip').map((c) => c.name) ?? []
      check(
        report !== undefined && report.exitCode === 0 && report.checks.length > 0 && failed.length === 0,
        `timeline-sheets doctor: ${report?.checks.length ?? 0} checks, none failed${failed.length ? ` (failed: ${failed.join(', ')})` : ''}`,
        doctor,
      )
      // The Google path of the installed command (the Sheets backend in the bundle, googleapis from npm): an export
      // into the Sheets fake on loopback, then an import of a manager's edit back to the server.
      const spreadsheetId = manager.createSpreadsheet({ title: `package check ${i}` })
      /** A config of one Google target beside the others in `folder`: the reference server, the Sheets fake, `auth`. */
      const writeGoogleConfig = async (file: string, auth: Record<string, string>, id: string): Promise<string> => {
        await writeFile(
          file,
          JSON.stringify({
            timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
            google: { auth, rootUrl: sheets.rootUrl },
            stateDir: `${path.basename(file, '.json')}-state`,
            targets: [
              { name: 'team', spreadsheet: { kind: 'google', spreadsheetId: id }, timeZone: 'Europe/Berlin', window: { days: 21 } },
            ],
          }),
        )
        return file
      }
      const googleConfig = await writeGoogleConfig(
        path.join(folder, 'google.json'),
        { mode: 'static-token', tokenEnv: 'CHECK_GOOGLE_TOKEN' },
        spreadsheetId,
      )
      const googleEnv = { ...password, CHECK_GOOGLE_TOKEN: sheets.staticToken }
      const intoGoogle = await cli(['export', '--config', googleConfig, '--now', '2026-11-10T11:00:00Z', '--json'], googleEnv, folder)
      const googleSummary = intoGoogle.code === 0 ? (JSON.parse(intoGoogle.stdout) as { runs: Summary[] }).runs[0] : undefined
      const tab = activitiesIn(spreadsheetId)
      check(
        googleSummary?.result === 'success' && googleSummary.counts.created > 0 && tab.length === googleSummary.counts.created + 1,
        `export into a Google spreadsheet (the Sheets fake): ${googleSummary?.counts.created ?? 0} rows, ${Math.max(tab.length - 1, 0)} in the tab`,
        intoGoogle,
      )
      const notes = tab[0]?.indexOf('Notes') ?? -1
      if (notes >= 0) manager.editCell(spreadsheetId, 'Activities', `${columnLetters(notes)}2`, 'checked by the package check')
      const fromGoogle = await cli(
        ['import', '--yes', '--config', googleConfig, '--now', '2026-11-10T11:05:00Z', '--json'],
        googleEnv,
        folder,
      )
      type ImportJson = { runs: { result: string; counts: { updated: number } }[] }
      const imported = fromGoogle.code === 0 ? (JSON.parse(fromGoogle.stdout) as ImportJson).runs[0] : undefined
      const onServer = server.credentials.users.some((u) =>
        server.store.activities(u.tagsTimelineKey!).some((a) => a.notes === 'checked by the package check'),
      )
      check(
        notes >= 0 && imported?.result === 'success' && imported.counts.updated === 1 && onServer,
        "import from that Google spreadsheet: a manager's edit is sent to the server",
        fromGoogle,
      )

      const readerConfig = path.join(folder, 'reader.json')
      const reader = server.credentials.reader!
      await writeFile(
        readerConfig,
        (await readFile(config, 'utf8')).replace(JSON.stringify(server.credentials.transfer!.username), JSON.stringify(reader.username)),
      )
      const refused = await cli(['doctor', '--config', readerConfig, '--json'], { TIMELINE_PASSWORD: reader.password }, folder)
      const refusedReport = refused.stdout ? (JSON.parse(refused.stdout) as DoctorJson) : undefined
      check(
        refused.code === 6 && refusedReport?.checks.some((c) => c.name === 'Content editor (getAll)' && c.status === 'fail'),
        'timeline-sheets doctor as a reader account: exit 6, the Content editor check fails',
        refused,
      )

      // A Google service-account key file, as the console issues it but for token_uri: the installed command signs
      // its own JWT-bearer assertion (jose in the bundle) and exchanges it at the fake. The spreadsheet is shared
      // with that account only, so rows that arrive came with the token the exchange gave.
      const saSpreadsheetId = manager.createSpreadsheet({
        title: `package check ${i}, service account`,
        sharedWith: { [serviceAccountEmail]: 'writer' },
      })
      await writeFile(
        path.join(folder, 'service-account.json'),
        JSON.stringify({
          type: 'service_account',
          project_id: 'timeline-sheets-check',
          private_key_id: `check-key-${i}`,
          private_key: serviceAccount.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
          client_email: serviceAccountEmail,
          client_id: '100000000000000000001',
          auth_uri: 'https://accounts.google.com/o/oauth2/auth',
          token_uri: sheets.tokenUrl,
          auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
          universe_domain: 'googleapis.com',
        }),
      )
      const saConfig = await writeGoogleConfig(
        path.join(folder, 'service-account-config.json'),
        { mode: 'service-account', keyFile: 'service-account.json' },
        saSpreadsheetId,
      )
      const grantsBefore = sheets.store.auth.tokenRequests().length
      const asServiceAccount = await cli(['export', '--config', saConfig, '--now', '2026-11-10T11:00:00Z', '--json'], password, folder)
      const saSummary = asServiceAccount.code === 0 ? (JSON.parse(asServiceAccount.stdout) as { runs: Summary[] }).runs[0] : undefined
      const saTab = activitiesIn(saSpreadsheetId)
      const jwtGrants = sheets.store.auth
        .tokenRequests()
        .slice(grantsBefore)
        .filter((r) => r.grantType === 'urn:ietf:params:oauth:grant-type:jwt-bearer' && r.status === 200)
        .filter((r) => issuerOf(r.form.assertion) === serviceAccountEmail)
      check(
        saSummary?.result === 'success' &&
          saSummary.counts.created > 0 &&
          saTab.length === saSummary.counts.created + 1 &&
          jwtGrants.length > 0,
        `export into a Google spreadsheet with a service-account key file: ${saSummary?.counts.created ?? 0} rows, ` +
          `${Math.max(saTab.length - 1, 0)} in the tab, ${jwtGrants.length} JWT-bearer token request(s) granted`,
        asServiceAccount,
      )

      // The sign-ins the checks above do not take (cloud: login with PKCE, refresh; Windows: NTLM), and a bug's
      // --verbose stack, through the bundle: the sources' e2e files, their CLI runs pointed at the installed bin
      // on this Node (test/e2e/cli.ts); vitest and the counterparts run on the project's Node, which strips types.
      const bin = path.join(installedRoot, 'bin', 'timeline-sheets.js')
      const results = path.join(work, `e2e-${i}.json`)
      const e2e = await run(
        process.execPath,
        [
          path.join(root, 'node_modules', 'vitest', 'vitest.mjs'),
          'run',
          ...E2E_FILES,
          '--reporter=default',
          '--reporter=json',
          `--outputFile.json=${results}`,
        ],
        { env: { ...env, [CLI_ENV]: bin, [CLI_NODE_ENV]: node } },
      )
      const ran = existsSync(results) ? (JSON.parse(await readFile(results, 'utf8')) as VitestJson) : undefined
      const files = new Set(ran?.testResults.map((r) => path.relative(root, r.name)))
      check(
        e2e.code === 0 &&
          ran !== undefined &&
          ran.numPassedTests > 0 &&
          ran.numPassedTests === ran.numTotalTests &&
          E2E_FILES.every((f) => files.has(f)),
        `the cloud sign-in, NTLM, metadata-server sign-in and bug-report e2e tests against the installed bin: ${ran?.numPassedTests ?? 0} of ${ran?.numTotalTests ?? 0} passed ` +
          `(${E2E_FILES.join(', ')})`,
        e2e,
      )
    }
  } finally {
    await server.close()
    await sheets.close()
  }
} finally {
  if (values.keep) process.stdout.write(`Kept ${work}\n`)
  else await rm(work, { recursive: true, force: true })
}

if (failures > 0) {
  process.stdout.write(`${failures} package check(s) failed.\n`)
  process.exit(1)
}
process.stdout.write('The packed package installs and runs.\n')
