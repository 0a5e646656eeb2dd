/**
 * Packages the build puts into the bundle instead of leaving them to npm (scripts/build.ts): small, MIT-licensed
 * ES modules that every command loads and that are many files each (zod alone is about 95 modules, 30–40 ms of
 * every start when loaded one by one, about 10 ms bundled). They are devDependencies, and the package carries
 * their licences in dist/THIRD-PARTY-NOTICES.md. Every other package stays a dependency that npm installs.
 */
export const BUNDLED_PACKAGES = ['zod', 'commander', 'p-queue', 'croner', '@date-fns/tz'] as const

/** The package a bare import specifier names (`@scope/name/sub` → `@scope/name`). */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!
}
