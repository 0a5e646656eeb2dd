/**
 * The npm steps that turn a clone into the installed command, in one place: `npm run check-package` runs them and
 * tests what they installed, and the Dockerfile runs the same ones to build the image, which cannot be built on
 * the project's machines (no image registry is reachable). test/package/dockerfile.test.ts holds the Dockerfile's
 * RUN lines to these, so the image installs the package exactly as the check tested it.
 */

/** `npm pack`: runs prepack (the build into dist/) and writes the tarball into `destination`; --json lists its files. */
export function packArgs(destination: string): string[] {
  return ['pack', '--json', '--pack-destination', destination]
}

/** `npm install --global` of the tarball, as an operator installs it; `prefix` moves the global folder (the check's temp one). */
export function installArgs(tarball: string, prefix?: string): string[] {
  return [
    'install',
    '--global',
    ...(prefix === undefined ? [] : ['--prefix', prefix]),
    '--no-audit',
    '--no-fund',
    '--prefer-offline',
    tarball,
  ]
}
