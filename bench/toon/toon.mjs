// Encodes every document of the manifest with the reference TOON encoder
// (@toon-format/toon, default options: 2-space indent, "," delimiter) and
// checks that decoding gives back the same value.
//
// Usage: node bench/toon/toon.mjs MANIFEST OUT_DIR   (writes OUT_DIR/NAME.toon and OUT_DIR/toon.json)
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { encode, decode } from '@toon-format/toon';

const [manifestPath, outDir] = process.argv.slice(2);
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
mkdirSync(outDir, { recursive: true });
const pkg = fileURLToPath(new URL('./node_modules/@toon-format/toon/package.json', import.meta.url));
const version = JSON.parse(readFileSync(pkg, 'utf8')).version;
const docs = [];
for (const doc of manifest) {
  const value = JSON.parse(readFileSync(doc.path, 'utf8'));
  const toon = encode(value);
  writeFileSync(`${outDir}/${doc.name}.toon`, toon);
  let roundtrip;
  try {
    roundtrip = JSON.stringify(decode(toon)) === JSON.stringify(value) ? 'ok' : 'differs';
  } catch (e) {
    roundtrip = `decode error: ${e.message}`;
  }
  docs.push({ name: doc.name, bytes: Buffer.byteLength(toon), roundtrip });
}
writeFileSync(`${outDir}/toon.json`, JSON.stringify({ package: '@toon-format/toon', version, node: process.version, docs }, null, 1));
console.error(`toon.mjs: ${docs.length} documents encoded with @toon-format/toon ${version}`);
