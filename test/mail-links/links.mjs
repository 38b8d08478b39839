// Reads a JSON array of texts on stdin; writes, for each, the links that
// two autolinkers find in it, as a mail client's would (linkifyjs, and
// linkify-it, markdown-it's): [[{"finder", "text", "url"}, …], …].
import LinkifyIt from "linkify-it";
import * as linkifyjs from "linkifyjs";

const linkifyIt = new LinkifyIt();
let input = "";
for await (const chunk of process.stdin) input += chunk;
const out = JSON.parse(input).map((text) => [
  ...(linkifyIt.match(text) || []).map((m) => ({ finder: "linkify-it", text: m.text, url: m.url })),
  ...linkifyjs.find(text).map((m) => ({ finder: "linkifyjs", text: m.value, url: m.href })),
]);
process.stdout.write(JSON.stringify(out));
