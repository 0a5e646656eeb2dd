/**
 * The peers as they are run: plain JavaScript. A script people write is a .js
 * file, but bench/peers/ is TypeScript (typed against the googleapis client),
 * and a .ts file makes Node load its type stripper (amaro) into the process,
 * 35–50 ms a run that such a script never pays. So once per bench run each peer
 * is bundled with rolldown, as scripts/build.ts bundles the tool, into one .mjs
 * file in a temporary folder, and that file is what a peer run starts.
 *
 * Only the peer's own files are bundled (bench/peers/, bench/lib/emit.ts);
 * packages stay imports, pointed at the files this checkout's node_modules
 * resolves them to (the temporary folder has no node_modules of its own).
 */
import { rmSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'rolldown'

export type PeerName = 'full-rewrite' | 'upsert' | 'append-per-row'

const PEER_NAMES: readonly PeerName[] = ['full-rewrite', 'upsert', 'append-per-row']
const SRC = fileURLToPath(new URL('../../src/', import.meta.url))
let built: Promise<Record<PeerName, string>> | undefined

/** The bundled peer's file; the first call bundles all of them (a few hundred ms, outside any measured run). */
export async function peerScript(name: PeerName): Promise<string> {
  built ??= bundlePeers()
  return (await built)[name]
}

async function bundlePeers(): Promise<Record<PeerName, string>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ts-bench-peers-'))
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
  const scripts = {} as Record<PeerName, string>
  for (const name of PEER_NAMES) {
    const bundle = await build({
      input: { [name]: fileURLToPath(new URL(`../peers/${name}.ts`, import.meta.url)) },
      platform: 'node',
      external: (id) => !id.startsWith('.') && !path.isAbsolute(id),
      output: { dir, format: 'esm', entryFileNames: '[name].mjs', paths: (id) => import.meta.resolve(id) },
      logLevel: 'warn',
    })
    // A peer is written from its own description: it must not get faster or slower because src changed.
    const fromSrc = bundle.output.flatMap((o) => (o.type === 'chunk' ? o.moduleIds : [])).filter((id) => id.startsWith(SRC))
    if (fromSrc.length) throw new Error(`bench/peers/${name}.ts imports src, which a peer must not: ${fromSrc.join(', ')}`)
    scripts[name] = path.join(dir, `${name}.mjs`)
  }
  return scripts
}
