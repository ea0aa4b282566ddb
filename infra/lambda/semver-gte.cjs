// What a Lambda bundle carries in place of `semver` (swapped for this file by `buildLambdaBundle`).
// Its users there are the X-Ray SDK, loaded with the Powertools Tracer: its AWS SDK v2 patcher and
// cls-hooked, which picks its context tracking by Node's version. Both call `gte` and nothing else,
// yet `require('semver')` brings every function and the range classes (some 28 KB, and cls-hooked's
// own semver 5 beside it). This hands them semver's own `gte`. The path is relative because the
// alias rewrites every `semver/...` specifier too.
module.exports = { gte: require('../../node_modules/semver/functions/gte.js') };
