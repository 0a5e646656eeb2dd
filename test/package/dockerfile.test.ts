/**
 * The Dockerfile cannot be built here (no image registry is reachable), so this holds it to what is tested: it
 * packs and installs the package with the steps `npm run check-package` runs (scripts/package-steps.ts) after
 * CI's `npm ci`, on the Node major the project runs; and it is what the README promises of the image — two stages,
 * a numeric non-root user, the state folder as a volume, and SIGTERM reaching the process (tini as PID 1, exec form).
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { installArgs, packArgs } from '../../scripts/package-steps.ts'

const root = path.resolve(import.meta.dirname, '../..')
const read = (file: string) => readFile(path.join(root, file), 'utf8')

interface Instruction {
  keyword: string
  args: string
}

/** The Dockerfile's instructions by stage, continuation lines joined, comments left out. */
async function stages(): Promise<Instruction[][]> {
  const text = (await read('Dockerfile')).replace(/\\\n/g, ' ')
  const result: Instruction[][] = []
  for (const line of text.split('\n')) {
    const trimmed = line.trim()
    if (trimmed === '' || trimmed.startsWith('#')) continue
    const [, keyword, args] = /^(\w+)\s+(.*)$/.exec(trimmed) ?? []
    if (keyword === undefined || args === undefined) throw new Error(`Dockerfile: cannot read "${trimmed}"`)
    if (keyword.toUpperCase() === 'FROM') result.push([])
    result.at(-1)?.push({ keyword: keyword.toUpperCase(), args: args.replace(/\s+/g, ' ').trim() })
  }
  return result
}

/** The commands of a stage's RUN lines, each split at `&&` into words. */
function commands(stage: Instruction[]): string[][] {
  return stage
    .filter((i) => i.keyword === 'RUN')
    .flatMap((i) => i.args.split('&&'))
    .map((command) => command.trim().split(' '))
}

const args = (stage: Instruction[], keyword: string) => stage.filter((i) => i.keyword === keyword).map((i) => i.args)

describe('the Dockerfile', () => {
  it('packs in a first stage as CI does: npm ci, then the pack step of check-package', async () => {
    const [pack] = await stages()
    expect(args(pack!, 'FROM')[0]).toMatch(/ AS pack$/)
    expect(commands(pack!)).toEqual([
      ['npm', 'ci'],
      ['npm', ...packArgs('/pack')],
    ])
    expect(await read('.ci/run')).toMatch(/^npm ci$/m)
  })

  it('installs the tarball in the image with the install step of check-package, and nothing of the clone', async () => {
    const all = await stages()
    expect(all).toHaveLength(2)
    const image = all[1]!
    expect(args(image, 'COPY')).toEqual(['--from=pack /pack/ /pack/'])
    expect(commands(image)).toContainEqual(['npm', ...installArgs('/pack/timeline-sheets-*.tgz')])
  })

  it('check-package runs those same two steps', async () => {
    const script = await read('scripts/check-package.ts')
    expect(script).toContain("run('npm', packArgs(work))")
    expect(script).toContain("run('npm', installArgs(tarball, prefix))")
  })

  it("runs on the Node major the project runs on (package.json's node devDependency)", async () => {
    const pkg = JSON.parse(await read('package.json')) as { devDependencies: { node: string } }
    const major = /(\d+)/.exec(pkg.devDependencies.node)![1]
    for (const stage of await stages()) expect(args(stage, 'FROM')[0]).toMatch(new RegExp(`^node:${major}-`))
  })

  it('runs as a numeric non-root user, with the state folder a volume it owns', async () => {
    const image = (await stages())[1]!
    const [user] = args(image, 'USER')
    expect(user).toMatch(/^\d+:\d+$/)
    expect(user!.split(':').map(Number)).not.toContain(0)
    expect(args(image, 'VOLUME')).toEqual(['["/state"]'])
    expect(commands(image)).toContainEqual(['mkdir', '/state'])
    expect(commands(image)).toContainEqual(['chown', user!, '/state'])
  })

  it('starts the command under tini in exec form, so SIGTERM reaches it', async () => {
    const image = (await stages())[1]!
    expect(args(image, 'ENTRYPOINT').map((e) => JSON.parse(e) as unknown)).toEqual([['/usr/bin/tini', '--', 'timeline-sheets']])
    expect(commands(image)).toContainEqual(['apt-get', 'install', '--yes', '--no-install-recommends', 'tini'])
  })

  it("keeps the host's node_modules and .git out of the build", async () => {
    const ignored = (await read('.dockerignore')).split('\n').map((line) => line.trim())
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', '.git', 'dist']))
  })
})
