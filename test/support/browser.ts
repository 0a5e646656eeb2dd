/**
 * A scripted "browser" for login tests: follows the login server's redirects
 * with a cookie jar (redirect: 'manual'), stops at the redirect_uri and GETs
 * it, so the CLI's own callback listener handles it as it would a real browser.
 */

export interface ScriptedBrowserOptions {
  /** Changes the callback URL before it is visited (e.g. a wrong `state`). */
  tamperCallback?: (callback: URL) => URL
  /** Stops after this many redirects. @default 20 */
  maxRedirects?: number
}

export interface CallbackVisit {
  url: string
  status: number
  body: string
}

export interface ScriptedBrowser {
  /** Pass as `openBrowser`. */
  open(url: string): Promise<void>
  /** Every URL requested, in order. */
  readonly visited: string[]
  /** What the callback listener answered, once visited. */
  callback: CallbackVisit | undefined
  /** Resolves when `open` has finished (with the callback answer). */
  readonly finished: Promise<CallbackVisit>
}

/** Creates a browser whose `open` drives a whole login non-interactively. */
export function scriptedBrowser(options: ScriptedBrowserOptions = {}): ScriptedBrowser {
  const cookies = new Map<string, string>()
  const visited: string[] = []
  let settle!: { resolve: (visit: CallbackVisit) => void; reject: (error: unknown) => void }
  const finished = new Promise<CallbackVisit>((resolve, reject) => {
    settle = { resolve, reject }
  })
  // Tests that only look at the login's own result must not see an unhandled rejection.
  finished.catch(() => undefined)

  const browser: ScriptedBrowser = {
    visited,
    callback: undefined,
    finished,
    async open(start: string) {
      try {
        const redirectUri = new URL(start).searchParams.get('redirect_uri')
        if (!redirectUri) throw new Error(`authorization URL has no redirect_uri: ${start}`)
        let url = new URL(start)
        for (let hop = 0; hop <= (options.maxRedirects ?? 20); hop++) {
          if (url.href.startsWith(redirectUri)) {
            const target = options.tamperCallback ? options.tamperCallback(new URL(url)) : url
            visited.push(target.href)
            const response = await fetch(target, { redirect: 'manual' })
            const visit = { url: target.href, status: response.status, body: await response.text() }
            browser.callback = visit
            settle.resolve(visit)
            return
          }
          visited.push(url.href)
          const response = await fetch(url, { redirect: 'manual', headers: cookieHeader(cookies) })
          for (const line of response.headers.getSetCookie()) remember(cookies, line)
          const location = response.headers.get('location')
          if (response.status < 300 || response.status >= 400 || !location) {
            throw new Error(
              `login page ${url.pathname} answered ${response.status} without a redirect: ${(await response.text()).slice(0, 200)}`,
            )
          }
          await response.body?.cancel()
          url = new URL(location, url)
        }
        throw new Error('too many redirects')
      } catch (error) {
        settle.reject(error)
        throw error
      }
    },
  }
  return browser
}

function cookieHeader(cookies: Map<string, string>): Record<string, string> {
  if (cookies.size === 0) return {}
  return { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') }
}

function remember(cookies: Map<string, string>, setCookie: string): void {
  const pair = setCookie.split(';', 1)[0] ?? ''
  const eq = pair.indexOf('=')
  if (eq <= 0) return
  const name = pair.slice(0, eq).trim()
  const value = pair.slice(eq + 1).trim()
  // An expired cookie (cleared by the server) has an empty value.
  if (value === '' || /expires=Thu, 01 Jan 1970/i.test(setCookie)) cookies.delete(name)
  else cookies.set(name, value)
}
