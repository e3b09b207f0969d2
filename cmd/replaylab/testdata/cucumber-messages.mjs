// Checks a Cucumber Messages stream with Cucumber's own packages, as the
// tools that read it do: every line is validated against the JSON schema
// @cucumber/messages ships (with Ajv, draft 2020-12), then the stream is
// rendered by @cucumber/html-formatter's CucumberHtmlStream (what
// cucumber-js's html formatter runs).
//
// usage: node cucumber-messages.mjs NPM_DIR MESSAGES.ndjson OUT.html
// Prints "ok N envelopes" or the first invalid lines; exits 1 on any.
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { pathToFileURL } from 'node:url'

const [npmDir, input, output] = process.argv.slice(2)
if (!npmDir || !input || !output) {
  console.error('usage: node cucumber-messages.mjs NPM_DIR MESSAGES.ndjson OUT.html')
  process.exit(2)
}
const modules = path.join(npmDir, 'node_modules')
const require = createRequire(path.join(modules, 'noop.js'))
const Ajv2020 = require('ajv/dist/2020').default
const schema = JSON.parse(fs.readFileSync(path.join(modules, '@cucumber/messages/messages.schema.json'), 'utf8'))
const formatterPkg = path.join(modules, '@cucumber/html-formatter')
const main = JSON.parse(fs.readFileSync(path.join(formatterPkg, 'package.json'), 'utf8')).main
const { CucumberHtmlStream } = await import(pathToFileURL(path.join(formatterPkg, main)).href)

const ajv = new Ajv2020({ allErrors: true, strict: false })
const validate = ajv.compile(schema)

const envelopes = []
let bad = 0
let n = 0
const lines = readline.createInterface({ input: fs.createReadStream(input), crlfDelay: Infinity })
for await (const line of lines) {
  n++
  if (line === '') {
    console.error(`line ${n}: empty line`)
    bad++
    continue
  }
  let env
  try {
    env = JSON.parse(line)
  } catch (e) {
    console.error(`line ${n}: not JSON: ${e.message}`)
    bad++
    continue
  }
  if (!validate(env)) {
    if (bad < 20) console.error(`line ${n}: ${ajv.errorsText(validate.errors)}\n  ${line.slice(0, 300)}`)
    bad++
    continue
  }
  envelopes.push(env)
}
if (bad > 0) {
  console.error(`${bad} of ${n} lines invalid`)
  process.exit(1)
}

const html = new CucumberHtmlStream()
const out = fs.createWriteStream(output)
html.pipe(out)
for (const env of envelopes) html.write(env)
html.end()
await new Promise((resolve, reject) => {
  out.on('finish', resolve)
  out.on('error', reject)
  html.on('error', reject)
})
console.log(`ok ${envelopes.length} envelopes`)
