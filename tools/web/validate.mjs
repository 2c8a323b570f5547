// The Khronos glTF validator over the files named: one JSON object, file -> its counts
// of errors, warnings and infos and their messages. Used by tests/viewer/test_gltf.py.
import { validateBytes } from 'gltf-validator';
import { readFileSync } from 'fs';

const out = {};
for (const file of process.argv.slice(2)) {
  const report = await validateBytes(new Uint8Array(readFileSync(file)), { maxIssues: 100 });
  out[file] = {
    errors: report.issues.numErrors,
    warnings: report.issues.numWarnings,
    infos: report.issues.numInfos,
    messages: report.issues.messages.map((m) => `${m.code} ${m.pointer || ''}: ${m.message}`),
    info: report.info,
  };
}
console.log(JSON.stringify(out));
