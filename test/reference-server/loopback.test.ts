import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'

let server: ReferenceServer

beforeAll(async () => {
  server = await startReferenceServer({ data: { users: 2, days: 7 } })
})

afterAll(async () => {
  await server.close()
})

async function signIn(username: string, password: string): Promise<string> {
  const response = await fetch(`${server.apiUrl}/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'password', username, password }),
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { token: string }).token
}

describe('reference server on loopback', () => {
  it('walks 401 → token → home → timelines → activities as the transfer user', async () => {
    const { transfer } = server.credentials
    expect(transfer).toMatchObject({ username: 'transfer@example.com', password: 'transfer-password', role: 'contentEditor' })
    const challenge = await fetch(server.apiUrl)
    expect(challenge.status).toBe(401)
    const { links } = (await challenge.json()) as { links: Array<{ href: string }> }
    expect(links[0]!.href).toBe(`${server.apiUrl}/token`)
    const token = await signIn(transfer!.username, transfer!.password)
    const headers = { authorization: `Bearer ${token}`, accept: server.store.vendor.mediaType }
    const home = (await (await fetch(server.apiUrl, { headers })).json()) as { links: Array<{ rel: string; href: string }> }
    const timelinesUrl = home.links.find((l) => l.rel === 'manictime/timelines')!.href
    const { timelines } = (await (await fetch(timelinesUrl, { headers })).json()) as {
      timelines: Array<{ timelineKey: string; schema: { name: string }; links: Array<{ rel: string; href: string }> }>
    }
    expect(timelines).toHaveLength(6)
    const tags = timelines.find((t) => t.schema.name === 'ManicTime/Tags')!
    const activitiesUrl = tags.links.find((l) => l.rel === 'manictime/activities')!.href
    const read = await fetch(`${activitiesUrl}?fromTime=2026-03-23T00:00:00%2B01:00&toTime=2026-03-24T00:00:00%2B01:00`, { headers })
    expect(read.status).toBe(200)
    const body = (await read.json()) as { entities: Array<{ entityType: string }> }
    expect(body.entities.filter((e) => e.entityType === 'activity').length).toBeGreaterThan(3)
  })

  it('drops the connection when the drop fault picks a request', async () => {
    const user = server.credentials.users[0]!
    const token = await signIn(user.username, user.password)
    server.faults.set({ drop: { next: 1 } })
    await expect(fetch(server.apiUrl, { headers: { authorization: `Bearer ${token}` } })).rejects.toThrow()
    const after = await fetch(server.apiUrl, { headers: { authorization: `Bearer ${token}` } })
    expect(after.status).toBe(200)
    expect(server.faults.counts().dropped).toBe(1)
  })

  it('answers 429 with Retry-After over the wire', async () => {
    server.faults.set({ rateLimit: { next: 1, retryAfterSeconds: 5 } })
    const response = await fetch(server.apiUrl)
    expect([response.status, response.headers.get('retry-after')]).toEqual([429, '5'])
    server.faults.clear()
  })
})

describe('reference server options', () => {
  it('starts empty, under a base path, with another vendor', async () => {
    const other = await startReferenceServer({ data: false, vendor: 'service', basePath: '/acct-1/' })
    try {
      expect(other.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/acct-1\/$/)
      expect(other.credentials.users).toEqual([])
      const response = await fetch(other.apiUrl)
      expect(response.headers.get('content-type')).toBe('application/vnd.service.v3+json; charset=utf-8')
      expect(await response.json()).toEqual({ links: [{ rel: 'service/token', href: `${other.apiUrl}/token` }] })
    } finally {
      await other.close()
    }
  })
})

describe('reference-server CLI', () => {
  it('prints the URL, the users and a walkthrough, and serves until stopped', async () => {
    const cli = fileURLToPath(new URL('../../counterparts/timeline/cli.ts', import.meta.url))
    const child = spawn(process.execPath, [cli, '--port', '0', '--users', '1', '--days', '1', '--vendor', 'service'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    try {
      let output = ''
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString()
          if (output.includes('Ctrl-C')) resolve()
        })
        child.once('exit', (code) => reject(new Error(`cli exited with ${code}: ${output}`)))
      })
      const url = /Reference Timeline server at (\S+)/.exec(output)![1]!
      expect(output).toContain('transfer@example.com  /  transfer-password  /  contentEditor')
      expect(output).toContain('alice@example.com  /  alice-password  /  user')
      expect(output).toContain(`curl -i ${url}`)
      expect(output).toContain('application/vnd.service.v3+json')
      expect((await fetch(url)).status).toBe(401)
    } finally {
      child.kill('SIGTERM')
    }
  })

  it('says it could not start when the port is taken, and exits non-zero', async () => {
    const cli = fileURLToPath(new URL('../../counterparts/timeline/cli.ts', import.meta.url))
    const child = spawn(process.execPath, [cli, '--port', String(server.loopback.port), '--users', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let errors = ''
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()))
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
    expect(code).toBe(1)
    expect(errors).toMatch(/could not start: .*EADDRINUSE/)
  })

  it.each([
    [['--users', 'many'], /users must be an integer/],
    [['--tag-source', 'spreadsheet'], /--tag-source must be "service" or "other"/],
  ])('refuses %j with a message and a non-zero exit', async (args, message) => {
    const cli = fileURLToPath(new URL('../../counterparts/timeline/cli.ts', import.meta.url))
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let errors = ''
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()))
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
    expect(code).not.toBe(0)
    expect(errors).toMatch(message)
  })
})
