// The panel's only stylesheet and script, served by the Worker itself: no CDN, and a CSP of 'self'.

export const css = `*,*::before,*::after{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f5f6f8}
a{color:#0b57b0}
:focus-visible{outline:3px solid #0b57b0;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem}
.skip:focus{left:.5rem}
.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.75rem 1rem;background:#12263f;color:#fff}
.top a{color:#fff}
.top nav{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center}
.brand{font-weight:700;text-decoration:none}
main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:1.25rem 0 .5rem}
.card{background:#fff;border:1px solid #d0d5dd;border-radius:8px;padding:1rem;margin:0 0 1rem}
.narrow{max-width:28rem}
label{display:inline-block;margin:.25rem 0}
input,select,textarea,button,.button{font:inherit;padding:.4rem .6rem;border:1px solid #667085;border-radius:6px;background:#fff;color:#1a1a1a;max-width:100%}
input[type=checkbox]{width:1.2rem;height:1.2rem}
input.position{width:4.5rem}
textarea{vertical-align:top;resize:vertical}
#name,#api_key,#secret{display:block;width:100%;max-width:28rem}
button,.button{background:#0b57b0;border-color:#0b57b0;color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
.top button{background:transparent;border-color:#fff}
form.inline{display:inline-flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:0}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin:.5rem 0}
.scroll{overflow-x:auto;margin:0 0 1rem}
table{border-collapse:collapse;width:100%;background:#fff}
/* A table of controls fits its page: a control takes its cell's width, and long text wraps. */
td>input:not([type=checkbox]),td>select,td>textarea{width:100%}
td{overflow-wrap:anywhere}
/* A row's type and target show whole on a wide screen (as cards, each takes the card's width). */
@media (min-width:40.01rem){td>select.js-type{min-width:8rem}td>input[list=targets]{min-width:19.5rem}td>input[name$=".key"]{min-width:7.5rem}td>textarea.js-formats{min-width:8.5rem}}
/* A key (\`data_compra\`), a custom field's target (\`contact.custom_fields.data_compra\`) and a date
   format (\`DD/MM/AAAA\`) show whole in a row that holds seven columns, at phone width too. */
td>input[list=targets],td>input[name$=".key"],td>textarea.js-formats{font-size:.9rem}
@media (max-width:40rem){td>input[list=targets]{font-size:.85rem}}
/* A flow's texts (a name template) show whole, up to the screen's width. */
fieldset.flow .option input[type=text]{width:min(22rem,calc(100vw - 5rem))}
/* A flow's box keeps the page's width: its widest control (a long owner's name) never widens the page. */
fieldset.flow{min-width:0}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #e4e7ec;vertical-align:top}
.copy{display:inline-flex;flex-wrap:wrap;gap:.25rem;align-items:center}
code{overflow-wrap:anywhere;font-size:.85rem}
.hint{color:#475467;font-size:.9rem;margin:.25rem 0}
.error{color:#b42318;display:block;font-size:.9rem}
[aria-invalid=true]{border-color:#b42318;border-width:2px}
.flash{padding:.6rem .8rem;border-radius:6px}
.flash.ok{background:#ecfdf3;border:1px solid #067647}
.flash.error{background:#fef3f2;border:1px solid #b42318}
.banner{padding:.75rem 1rem;border-radius:6px;font-weight:600}
.banner.test{background:#fffaeb;border:2px solid #b54708;color:#7a2e0e}
.banner.production{background:#ecfdf3;border:1px solid #067647;color:#054f31}
.banner.disabled{background:#f2f4f7;border:2px solid #475467}
.banner.storage-full{background:#fef3f2;border:2px solid #b42318;color:#7a271a}
.banner.storage-near{background:#fffaeb;border:2px solid #b54708;color:#7a2e0e}
.badge{display:inline-block;padding:0 .4rem;border-radius:4px;background:#eef2f6;border:1px solid #98a2b3;font-size:.85rem;white-space:nowrap}
.badge.test,.badge.pending{background:#fffaeb}
.badge.failed{background:#fef3f2}
.badge.processed,.badge.production{background:#ecfdf3}
fieldset{border:1px solid #d0d5dd;border-radius:6px;margin:.5rem 0;padding:.5rem .75rem}
fieldset.readonly{border:0;margin:0;padding:0}
fieldset.flow{display:flex;flex-wrap:wrap;gap:.25rem 1rem}
fieldset.inline-group{display:flex;flex-wrap:wrap;gap:.25rem 1rem;width:100%}
pre{background:#0f172a;color:#e2e8f0;padding:.75rem;border-radius:6px;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85rem}
/* A command to copy: its lines kept whole, the box scrolls instead of breaking a token. */
pre.curl{white-space:pre;overflow-wrap:normal;overflow-x:auto}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}
progress{width:100%;max-width:28rem;height:1.25rem}
.facts dd{margin:0}
.secret{margin-top:1rem}
.record{grid-template-columns:minmax(0,max-content) minmax(0,1fr)}
.record dt,.record dd{overflow-wrap:anywhere;white-space:pre-line}
/* inspect: the event page */
.visually-hidden{position:absolute;width:1px;height:1px;padding:0;border:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
details summary{cursor:pointer;margin:.5rem 0}
h3{font-size:1rem;margin:1rem 0 .5rem}
[hidden]{display:none!important}
select.wide{display:block;width:100%;max-width:28rem;margin:0 0 .5rem}
@media (max-width:40rem){
.scroll{overflow-x:visible}
.scroll table,.scroll tbody,.scroll tr,.scroll td{display:block;width:100%}
.scroll table{background:transparent}
.scroll thead,.scroll thead *{display:block;position:absolute;width:1px;height:1px;padding:0;border:0;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.scroll tr{background:#fff;border:1px solid #d0d5dd;border-radius:8px;margin:0 0 .75rem;padding:.25rem .75rem}
.scroll td{display:grid;grid-template-columns:minmax(0,7.5rem) minmax(0,1fr);gap:.5rem;border-bottom:1px solid #eef2f6;padding:.4rem 0;overflow-wrap:anywhere}
.scroll td:last-child{border-bottom:0}
.scroll td::before{content:attr(data-label);font-weight:600;color:#475467}
.scroll td>.error{grid-column:2}
.scroll td>.badge{justify-self:start}
.scroll td:empty{display:none}
.scroll td:has(> textarea.js-formats[hidden]){display:none}
.scroll td>input:not([type=checkbox]),.scroll td>select,.scroll td>textarea{width:100%}
.facts{grid-template-columns:minmax(0,max-content) minmax(55%,1fr)}
}
.danger{background:#b42318;border-color:#b42318;color:#fff;font-weight:600}
.button.secondary,button.secondary{background:#fff;color:#0b57b0}
.choices label{display:block}
.chart{margin:0 0 .5rem}
.chart svg{display:block;width:100%;height:auto;background:#fff}
.chart figcaption{color:#475467;font-size:.9rem}
.legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;padding:0;margin:.25rem 0 .75rem}
.legend svg{vertical-align:middle}
/* prefs: the overview's chart has one bar per hour, and per 4 hours at phone width. */
.chart .narrow{display:none}
@media (max-width:40rem){.chart .wide{display:none}.chart svg.narrow{display:block}.chart span.narrow{display:inline}}
.error-text{color:#b42318}
.examples{margin:0;padding-left:1rem;font-size:.85rem}
.round-robin .checks{display:flex;flex-wrap:wrap;gap:.25rem 1rem;max-height:12rem;overflow:auto}
.move{display:inline-flex;gap:.25rem}
.move button{padding:.1rem .6rem}
.test-body{width:100%;min-height:16rem;font-family:ui-monospace,monospace;font-size:.85rem}
/* guided: the steps of a new webhook */
.steps{display:flex;flex-wrap:wrap;gap:.35rem .5rem;list-style:none;padding:0;margin:.25rem 0 1rem}
.steps li{padding:.15rem .65rem;border:1px solid #98a2b3;border-radius:999px;background:#fff;font-size:.9rem;white-space:nowrap}
.steps li.current{background:#12263f;color:#fff;border-color:#12263f;font-weight:600}
.steps li.done{background:#ecfdf3;border-color:#067647}
.step-n{font-weight:700}
.sentences{list-style:none;padding:0;margin:.5rem 0 1rem}
.sentences li{margin:.5rem 0}
.sentences select{margin:.25rem 0}
.sentences .chip{padding:.05rem .4rem;margin:.1rem 0;font-family:ui-monospace,monospace;font-size:.85rem}
.step-buttons{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.guided h2{margin-top:0}
td .part{display:inline-block;max-width:100%;overflow-wrap:break-word}
@media (max-width:40rem){.guided{padding:.75rem}.scroll .mapping tr{padding:.25rem .5rem}.scroll .mapping td,.scroll .stacked td{grid-template-columns:minmax(0,1fr);gap:.15rem}.mapping select{font-size:.9rem;padding:.4rem .3rem}}
.filters{background:#fff;border:1px solid #d0d5dd;border-radius:8px;padding:.75rem 1rem;margin:0 0 1rem}
.filters p{margin:.25rem 0}
.filters .row{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
#q{display:block;width:100%;max-width:28rem}
.badge.warned{background:#fffaeb;border-color:#b54708}
details.confirm{margin:0 0 1rem}
details.confirm summary{display:inline-block;cursor:pointer;padding:.4rem .6rem;border-radius:6px}
details.confirm[open]{background:#fef3f2;border:1px solid #b42318;border-radius:8px;padding:.5rem .75rem}
/* outbound: the endpoints, their event type picker and the secret shown once */
ul.plain{list-style:none;padding:0;margin:0}
fieldset.types{display:grid;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));gap:.25rem 1rem}
fieldset.types>legend,fieldset.types>.hint,fieldset.types>.error,fieldset.types>.check{grid-column:1/-1}
fieldset.types .group{margin:0}
fieldset.types label{display:grid;grid-template-columns:auto minmax(0,1fr);gap:.5rem;align-items:start;margin:.15rem 0}
fieldset.types label input{margin:.2rem 0 0}
#url,#description{display:block;width:100%;max-width:40rem}
.banner.warn{background:#fffaeb;border:2px solid #b54708;color:#7a2e0e}
.secret-value{font-size:1rem;background:#f2f4f7;padding:.25rem .4rem;border-radius:4px}
.badge.succeeded,.badge.on{background:#ecfdf3}
.badge.aborted,.badge.off{background:#f2f4f7}
.delivery h2{margin-top:0}
`;

export const js = `"use strict";
// An import's progress: its part of the page read again every 2 s while the import runs; once
// it ended, the whole page (its buttons change).
const poll = async (part) => {
  const res = await fetch(part.dataset.poll, { credentials: "same-origin" }).catch(() => null);
  const doc = res && res.ok ? new DOMParser().parseFromString(await res.text(), "text/html") : null;
  const next = doc && doc.getElementById("import-progress");
  if (!next) return;
  if (!next.dataset.poll) return location.reload();
  part.replaceWith(next);
  setTimeout(() => poll(next), 2000);
};
const polled = document.querySelector("[data-poll]");
if (polled) setTimeout(() => poll(polled), 2000);
for (const button of document.querySelectorAll(".js-copy")) {
  if (!navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener("click", async () => {
    const source = document.getElementById(button.dataset.copy);
    if (!source) return;
    await navigator.clipboard.writeText(source.textContent);
    const label = button.textContent;
    button.textContent = button.dataset.done;
    setTimeout(() => { button.textContent = label; }, 1500);
  });
}
// Step 4's deal name: each field's button inserts it where the cursor is, and the name the example
// event gives is written again as it is typed (defaults kept; the server's tidying is not redone).
const dealName = document.querySelector("input[name=deal_name]");
if (dealName) {
  const shown = document.querySelector("[data-deal-example]");
  const values = shown ? JSON.parse(shown.dataset.values) : {};
  const valueOf = (key, fallback) => String(Object.hasOwn(values, key) ? values[key] : (fallback ?? "")).trim();
  const again = () => {
    if (!shown) return;
    const name = dealName.value.replace(/\\{\\{\\s*([^{}|\\s]+)\\s*(?:\\|([^{}]*))?\\}\\}/g, (_, k, d) => valueOf(k, d));
    shown.textContent = shown.dataset.template.replace("{name}", name.trim());
  };
  dealName.addEventListener("input", again);
  for (const button of document.querySelectorAll(".js-chips button")) {
    button.addEventListener("click", () => {
      dealName.setRangeText(button.dataset.insert, dealName.selectionStart, dealName.selectionEnd, "end");
      dealName.focus();
      again();
    });
  }
  document.querySelector(".js-chips").hidden = false;
  document.querySelector(".js-chips-text").hidden = true;
}
// A pending event's page looks again every 4 s, for 5 minutes at most, and swaps in the page once
// the event settles, saying so through a polite live region (no meta refresh: it moves focus).
const watched = document.querySelector("[data-refresh=pending]");
if (watched && window.fetch && window.DOMParser) {
  const live = document.createElement("p");
  live.className = "visually-hidden";
  live.setAttribute("role", "status");
  document.body.append(live);
  let tries = 0;
  const look = async () => {
    tries += 1;
    try {
      if (!document.hidden) {
        const res = await fetch(location.href, { credentials: "same-origin", cache: "no-store" });
        const doc = res.ok ? new DOMParser().parseFromString(await res.text(), "text/html") : null;
        const fresh = doc && doc.querySelector("[data-status]");
        const main = document.getElementById("main");
        const next = doc && doc.getElementById("main");
        if (fresh && main && next && fresh.dataset.status !== "pending") {
          main.replaceChildren(...next.childNodes);
          live.textContent = fresh.dataset.statusLabel;
          return;
        }
      }
    } catch {
      // A failed look is tried again at the next tick.
    }
    if (tries >= 75) {
      live.textContent = watched.dataset.refreshStopped;
      return;
    }
    setTimeout(look, 4000);
  };
  setTimeout(look, 4000);
}
// A configuration form with changes not saved (typed, ticked, moved, or a refused save's draft)
// asks before the page is left by a link or another form; its own submit does not ask.
for (const form of document.querySelectorAll("form[data-guard]")) {
  let dirty = form.dataset.guard === "unsaved";
  const touch = () => { dirty = true; };
  form.addEventListener("input", touch);
  form.addEventListener("change", touch);
  form.addEventListener("click", (event) => { if (event.target.closest(".js-move")) touch(); });
  form.addEventListener("submit", () => { dirty = false; });
  window.addEventListener("beforeunload", (event) => {
    if (!dirty) return;
    event.preventDefault();
    event.returnValue = "";
  });
}
// A field's date formats box shows while its type is date (the server hides it on other types).
document.addEventListener("change", (event) => {
  const type = event.target.closest?.("select.js-type");
  const box = type?.closest("tr")?.querySelector("textarea.js-formats");
  if (box && box.value === "") box.hidden = type.value !== "date";
});
// A flow block shows the options its chosen action takes (data-actions); a blank one, none.
const showOptions = (block) => {
  const chosen = block.querySelector("select.js-action")?.value ?? "";
  for (const box of block.querySelectorAll(".option[data-actions]")) {
    box.hidden = chosen === "" || !box.dataset.actions.split(" ").includes(chosen);
  }
};
// Up and down swap blocks; the position inputs (what the server reads) follow their order.
const renumber = (list) => {
  list.querySelectorAll("fieldset.flow").forEach((block, i) => {
    const position = block.querySelector("input.position");
    if (position) position.value = String(i + 1);
    const n = block.querySelector(".flow-n");
    if (n) n.textContent = String(i + 1);
    for (const button of block.querySelectorAll(".js-move")) {
      button.setAttribute("aria-label", button.getAttribute("aria-label").replace(/\\d+$/, String(i + 1)));
    }
  });
};
const setUpBlock = (block) => {
  showOptions(block);
  const move = block.querySelector(".move");
  if (move) move.hidden = false;
};
document.addEventListener("change", (event) => {
  const action = event.target.closest?.("select.js-action");
  const block = action?.closest("fieldset.flow");
  if (block) showOptions(block);
});
for (const list of document.querySelectorAll(".flows")) {
  for (const block of list.querySelectorAll("fieldset.flow")) setUpBlock(block);
  list.addEventListener("click", (event) => {
    const button = event.target.closest(".js-move");
    if (!button) return;
    const block = button.closest("fieldset.flow");
    const other = button.dataset.step === "-1" ? block.previousElementSibling : block.nextElementSibling;
    if (!other || !other.matches("fieldset.flow")) return;
    if (button.dataset.step === "-1") list.insertBefore(block, other);
    else list.insertBefore(other, block);
    renumber(list);
    button.focus();
  });
}
// "Add a field" and "Add an action" add a row from the list's template, named after the highest
// index in use and numbered after the last row, and focus it; without JS the button sends the form
// back for the same form with one more row.
for (const button of document.querySelectorAll("button.js-add")) {
  const template = document.getElementById(button.dataset.template);
  const list = document.getElementById(button.dataset.list);
  if (!template || !list) continue;
  button.addEventListener("click", (event) => {
    event.preventDefault();
    const count = list.children.length;
    if (count >= Number(button.dataset.max)) return;
    const used = [...list.querySelectorAll("[name]")].map((el) => Number(/^\\w+\\.(\\d+)\\./.exec(el.name)?.[1] ?? -1));
    const next = Math.max(-1, ...used) + 1;
    const row = template.innerHTML.replaceAll("__i__", String(next)).replaceAll("__n__", String(count + 1));
    list.insertAdjacentHTML("beforeend", row);
    const added = list.lastElementChild;
    if (added.matches("fieldset.flow")) { setUpBlock(added); renumber(list); }
    added.querySelector("input:not([type=hidden]), select")?.focus();
    if (count + 1 >= Number(button.dataset.max)) button.hidden = true;
  });
}
`;
