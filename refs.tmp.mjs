import ts from 'typescript';
import path from 'node:path';
const root = process.cwd();
const cfgPath = path.join(root, 'tsconfig.tests.json');
const cfg = ts.getParsedCommandLineOfConfigFile(cfgPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
const libs = ['config','cache','tracing','http','db','auth','service-client','projections','events','limits','storage','service','testing'];
const paths = Object.fromEntries(libs.map((l) => [`@wiki/${l}`, [`libs/${l}/src/index.ts`]]));
paths['@wiki/gateway'] = ['gateway/src/service.ts'];
const options = { ...cfg.options, baseUrl: root, paths };
const files = cfg.fileNames;
const host = {
  getScriptFileNames: () => files,
  getScriptVersion: () => '1',
  getScriptSnapshot: (f) => { const t = ts.sys.readFile(f); return t === undefined ? undefined : ts.ScriptSnapshot.fromString(t); },
  getCurrentDirectory: () => root,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists, readFile: ts.sys.readFile, readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists, getDirectories: ts.sys.getDirectories,
};
const ls = ts.createLanguageService(host);
const program = ls.getProgram();
const isTest = (f) => /\.test\.ts$|\/test\//.test(f);
const rel = (f) => path.relative(root, f);
const targets = files.filter((f) => /^(libs\/[^/]+\/src|services\/[^/]+\/src|gateway\/src)\//.test(rel(f)) && !isTest(rel(f)) && !f.endsWith('.d.ts'));
for (const file of targets) {
  const sf = program.getSourceFile(file);
  if (!sf) continue;
  const decls = [];
  for (const st of sf.statements) {
    const exported = (ts.canHaveModifiers(st) ? ts.getModifiers(st) : undefined)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false;
    if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) { if (ts.isIdentifier(d.name)) decls.push([d.name, exported]); }
    else if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st) || ts.isEnumDeclaration(st)) && st.name) decls.push([st.name, exported]);
  }
  for (const [id, exported] of decls) {
    const refs = ls.findReferences(file, id.getStart()) ?? [];
    let own = 0; const prod = new Set(); const tests = new Set();
    for (const r of refs) for (const e of r.references) {
      if (e.isDefinition) continue;
      const f = rel(e.fileName);
      if (/^libs\/[^/]+\/src\/index\.ts$/.test(f)) continue;
      if (e.fileName === file) own++; else if (isTest(f)) tests.add(f); else prod.add(f);
    }
    if (prod.size === 0 && (own === 0 || exported)) {
      const status = own === 0 && tests.size === 0 ? 'DEAD' : own === 0 ? 'TESTONLY' : 'LOCALONLY';
      if (status !== 'LOCALONLY' || process.env.ALL) console.log(`${status}\t${rel(file)}\t${id.text}\t${exported ? 'export' : 'local'}\t${[...tests].join(',')}`);
    }
  }
}
