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
.badge{display:inline-block;padding:0 .4rem;border-radius:4px;background:#eef2f6;border:1px solid #98a2b3;font-size:.85rem}
.badge.test,.badge.pending{background:#fffaeb}
.badge.failed{background:#fef3f2}
.badge.processed,.badge.production{background:#ecfdf3}
fieldset{border:1px solid #d0d5dd;border-radius:6px;margin:.5rem 0;padding:.5rem .75rem}
fieldset.readonly{border:0;margin:0;padding:0}
fieldset.flow{display:flex;flex-wrap:wrap;gap:.25rem 1rem}
fieldset.inline-group{display:flex;flex-wrap:wrap;gap:.25rem 1rem;width:100%}
pre{background:#0f172a;color:#e2e8f0;padding:.75rem;border-radius:6px;overflow:auto;font-size:.85rem}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}
.facts dd{margin:0}
.secret{margin-top:1rem}
.filters{background:#fff;border:1px solid #d0d5dd;border-radius:8px;padding:.75rem 1rem;margin:0 0 1rem}
.filters p{margin:.25rem 0}
.filters .row{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
#q{display:block;width:100%;max-width:28rem}
.badge.warned{background:#fffaeb;border-color:#b54708}
.danger,button.danger{background:#b42318;border-color:#b42318;color:#fff}
details.confirm{margin:0 0 1rem}
details.confirm summary{display:inline-block;cursor:pointer;padding:.4rem .6rem;border-radius:6px}
details.confirm[open]{background:#fef3f2;border:1px solid #b42318;border-radius:8px;padding:.5rem .75rem}
`;

export const js = `"use strict";
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
`;
