/**
 * The three exporters the headline compares, behind one shape: each owns a
 * spreadsheet in the fake (and the tool its state folder), can start over on a
 * fresh one, and runs as a whole process.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { PeerOptions } from '../peers/lib.ts'
import type { Host, TimelineStarted } from './host-client.ts'
import { peerScript, type PeerName } from './peer-scripts.ts'
import { runNode, type ProcessRun } from './process.ts'
import { runTool, writeToolConfig, type ToolConfig } from './tool-cli.ts'

export const TOOL = 'timeline-sheets'
export const PEERS = ['full-rewrite', 'upsert'] as const

export interface Exporter {
  name: string
  peer: boolean
  spreadsheetId: string
  /** A new empty spreadsheet (and, for the tool, new state); the old one is deleted. */
  fresh(): Promise<void>
  run(now: Date): Promise<ProcessRun>
  dispose(): Promise<void>
}

export interface Stage {
  host: Host
  timeline: TimelineStarted
  sheets: { rootUrl: string; token: string }
  windowDays: number
  /** The window as dates, `[from, to)`, for the peers and the checks. */
  from: string
  to: string
}

/** The window the tool covers at `now` (UTC): `days` days up to and including today. */
export function windowDates(now: Date, days: number): { from: string; to: string } {
  const today = Date.parse(now.toISOString().slice(0, 10))
  const day = 86_400_000
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10)
  return { from: iso(today - (days - 1) * day), to: iso(today + day) }
}

export function toolExporter(stage: Stage, label: string): Exporter {
  let dir = ''
  let config: ToolConfig | undefined
  const exporter: Exporter = {
    name: TOOL,
    peer: false,
    spreadsheetId: '',
    async fresh() {
      await exporter.dispose()
      exporter.spreadsheetId = await stage.host.call<string>('createSpreadsheet', { title: `${label} ${TOOL}` })
      dir = await mkdtemp(path.join(tmpdir(), 'ts-bench-tool-'))
      config = await writeToolConfig({
        dir,
        timelineUrl: stage.timeline.url,
        username: stage.timeline.username,
        password: stage.timeline.password,
        rootUrl: stage.sheets.rootUrl,
        token: stage.sheets.token,
        windowDays: stage.windowDays,
        targets: [{ name: 'bench', spreadsheet: { kind: 'google', spreadsheetId: exporter.spreadsheetId } }],
      })
    },
    run: (now) => runTool(config!, ['export'], now),
    async dispose() {
      if (exporter.spreadsheetId) await stage.host.call('deleteSpreadsheet', { spreadsheetId: exporter.spreadsheetId })
      if (dir) await rm(dir, { recursive: true, force: true })
      exporter.spreadsheetId = ''
      dir = ''
    },
  }
  return exporter
}

/**
 * A peer script from bench/peers/, bundled into plain JavaScript (bench/lib/peer-scripts.ts), on a spreadsheet
 * with an empty Activities tab (as a person sets one up for a script).
 */
export function peerExporter(stage: Stage, name: PeerName, label: string, extra: Record<string, unknown> = {}): Exporter {
  const exporter: Exporter = {
    name,
    peer: true,
    spreadsheetId: '',
    async fresh() {
      await exporter.dispose()
      exporter.spreadsheetId = await stage.host.call<string>('createSpreadsheet', { title: `${label} ${name}`, tabs: ['Activities'] })
    },
    async run() {
      const options: PeerOptions = {
        timelineUrl: stage.timeline.url,
        username: stage.timeline.username,
        password: stage.timeline.password,
        rootUrl: stage.sheets.rootUrl,
        token: stage.sheets.token,
        spreadsheetId: exporter.spreadsheetId,
        from: stage.from,
        to: stage.to,
      }
      return runNode([await peerScript(name), JSON.stringify({ ...options, ...extra })])
    },
    async dispose() {
      if (exporter.spreadsheetId) await stage.host.call('deleteSpreadsheet', { spreadsheetId: exporter.spreadsheetId })
      exporter.spreadsheetId = ''
    },
  }
  return exporter
}
