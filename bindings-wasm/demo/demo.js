// The STC playground: STC ⇄ JSON with the wasm build. All format work is the
// package's; this file only moves text between the page and the package.
import init, { decode, encode, countTokens } from '../pkg/web/stc.js';

// ADR-066's columnar example, as the ADR writes it.
const ADR_EXAMPLE = '([2]{id,name,method}: 1,"users","GET" / 2,"orders","POST")';

const $ = (id) => document.getElementById(id);
const stcBox = $('stc');
const jsonBox = $('json');
const utf8 = new TextEncoder();
const bytes = (s) => utf8.encode(s).length;

function showCounts() {
  $('stc-bytes').textContent = `${bytes(stcBox.value).toLocaleString('en')} bytes`;
  $('json-bytes').textContent = `${bytes(jsonBox.value).toLocaleString('en')} bytes`;
}

function clearError() {
  $('error').hidden = true;
  $('error').textContent = '';
}

/** Shows a codec error with its line and column and selects the spot in `box`. */
function showError(e, box, label) {
  const err = $('error');
  err.hidden = false;
  if (e.code === undefined) {
    err.textContent = `${label}: ${e.message}`;
    return;
  }
  err.dataset.code = e.code;
  err.dataset.line = e.line;
  err.dataset.column = e.column;
  err.textContent = `${label} error (${e.code}) at line ${e.line}, column ${e.column}: ${e.reason}`;
  // Select the offending character: `index` is the error's position in the string (UTF-16).
  box.focus();
  box.setSelectionRange(e.index, Math.min(e.index + 1, box.value.length));
  $('status').textContent = `${label} failed.`;
}

function report(fromLabel, from, toLabel, to, minified) {
  const a = bytes(from);
  const b = bytes(to);
  const stcBytes = fromLabel === 'STC' ? a : b;
  const saving = minified > 0 ? (100 * (1 - stcBytes / minified)).toFixed(1) : '0.0';
  $('status').textContent =
    `${fromLabel} ${a.toLocaleString('en')} bytes → ${toLabel} ${b.toLocaleString('en')} bytes. ` +
    `STC is ${saving}% smaller than minified JSON (${minified.toLocaleString('en')} bytes); ` +
    `rough token estimate: STC ${countTokens(fromLabel === 'STC' ? from : to)}, minified JSON ${countTokens(fromLabel === 'STC' ? to : from)}.`;
}

function stcToJson() {
  clearError();
  try {
    const minified = decode(stcBox.value);
    // Indent through JSON.parse only when that keeps every byte (it would
    // round 40-digit integers and rewrite lexemes like 1.0); else show the exact text.
    const faithful = JSON.stringify(JSON.parse(minified)) === minified;
    jsonBox.value = $('pretty').checked && faithful ? JSON.stringify(JSON.parse(minified), null, 2) : minified;
    showCounts();
    report('STC', stcBox.value, 'JSON', minified, bytes(minified));
  } catch (e) {
    jsonBox.value = '';
    showCounts();
    showError(e, stcBox, 'STC');
  }
}

function jsonToStc() {
  clearError();
  try {
    const profile = $('profile').value;
    stcBox.value = encode(jsonBox.value, { profile });
    showCounts();
    const minified = decode(stcBox.value);
    report('JSON', jsonBox.value, 'STC', stcBox.value, bytes(minified));
  } catch (e) {
    stcBox.value = '';
    showCounts();
    showError(e, jsonBox, 'JSON');
  }
}

async function main() {
  await init();
  $('to-json').addEventListener('click', stcToJson);
  $('to-stc').addEventListener('click', jsonToStc);
  $('example').addEventListener('click', () => {
    stcBox.value = ADR_EXAMPLE;
    stcToJson();
  });
  $('file').addEventListener('change', async (ev) => {
    const file = ev.target.files[0];
    if (!file) return;
    const text = await file.text();
    // A file that is JSON goes to the JSON side and is encoded; anything else is read as STC.
    let isJson = true;
    try { JSON.parse(text); } catch { isJson = false; }
    if (isJson && !/\.stc$/i.test(file.name)) {
      jsonBox.value = text;
      jsonToStc();
    } else {
      stcBox.value = text;
      stcToJson();
    }
  });
  for (const box of [stcBox, jsonBox]) box.addEventListener('input', showCounts);
  showCounts();
  document.body.dataset.ready = 'true';
  $('status').textContent = 'Ready. Paste STC or JSON, or load the example.';
}

main().catch((e) => {
  $('status').textContent = `Could not start: ${e.message}`;
});
