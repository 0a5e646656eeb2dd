/**
 * On a terminal, import shows the plan and asks before it writes. The CLI runs
 * under `script`, which gives it a real pseudo-terminal, and the test answers
 * the prompt as a person would.
 */
import { spawn } from 'node:child_process'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { managerEditing } from '../sheets/workbook-fixture.ts'
import { CLI, runCli, tempFolder, writeConfig } from './cli.ts'

const NOW = '2026-11-10T11:00:00Z'
let server: ReferenceServer
let configFile: string
let workbookFile: string
let env: Record<string, string>
let key: string

beforeAll(async () => {
  server = await startReferenceServer({ data: { users: 1, days: 3, startDate: '2026-11-07', timeZones: ['UTC'], otherTimelines: false } })
  const folder = await tempFolder('prompt')
  workbookFile = path.join(folder, 'team.xlsx')
  configFile = await writeConfig(folder, {
    timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
    stateDir: 'state',
    targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: 'team.xlsx' }, timeZone: 'UTC', window: { days: 5 } }],
  })
  env = { TIMELINE_PASSWORD: server.credentials.transfer!.password }
  expect((await runCli(['export', '--config', configFile, '--now', NOW], env)).code).toBe(0)
  const tab = (await createWorkbookSpreadsheet({ path: workbookFile }).read(['Activities'])).tabs['Activities']!
  const col = (name: string) => tab.header.indexOf(name)
  key = tab.rows[0]![col('Key')] as string
  await managerEditing(workbookFile).editCell('Activities', 2, col('Notes'), 'asked first')
})

afterAll(async () => {
  await server?.close()
})

/** Runs `import` on a pseudo-terminal and types `answer` at the prompt. */
function importOnTerminal(answer: string): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, CLI, 'import', '--config', configFile, '--now', NOW].map((w) => `'${w}'`).join(' ')
  const child = spawn('script', ['-qefc', command, '/dev/null'], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
  let output = ''
  let answered = false
  const onData = (chunk: Buffer) => {
    output += chunk.toString()
    if (!answered && output.includes('[y/N]')) {
      answered = true
      child.stdin.write(`${answer}\r`)
    }
  }
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })))
}

function notes(): string | undefined {
  const [timelineKey, id] = key.split('/')
  return server.store.activity(timelineKey!, Number(id))?.notes
}

describe('import on a terminal', () => {
  it('shows the plan and writes nothing when the answer is no', async () => {
    const run = await importOnTerminal('n')
    expect(run.output).toContain('Plan for team:')
    expect(run.output).toContain('Apply these 1 changes to the server? [y/N]')
    expect(run.output).toContain('not applied')
    expect(run.code).toBe(0)
    expect(notes()).not.toBe('asked first')
  })

  it('applies the plan when the answer is yes', async () => {
    const run = await importOnTerminal('y')
    expect(run.code, run.output).toBe(0)
    expect(notes()).toBe('asked first')
  })
})
