// The review page's keys and saves. Every change is saved at once; saves go one after another, each
// based on the version the previous one returned. Text is only ever written with textContent.
(function () {
  "use strict";
  const main = document.getElementById("review");
  if (!main) { return; }
  const comment = document.getElementById("comment");
  const status = document.getElementById("status");
  const boxes = Array.from(main.querySelectorAll("input[data-item]"));
  let pending = Promise.resolve();
  let commentTimer = null;

  function say(text, failed) {
    status.textContent = text;
    status.className = failed ? "fail" : "ok";
  }

  function body() {
    return JSON.stringify({
      key: main.dataset.key, question: main.dataset.question, version: Number(main.dataset.version),
      items: boxes.filter((b) => b.checked).map((b) => b.dataset.item), comment: comment.value,
    });
  }

  function send() {
    const sent = comment.value;
    say(main.dataset.saving, false);
    return fetch(main.dataset.save, {method: "POST", headers: {"Content-Type": "application/json"}, body: body()})
      .then((response) => response.json().then((answer) => {
        if (response.ok) {
          main.dataset.version = String(answer.version);
          if (sessionStorage.getItem(draftKey) === sent) { sessionStorage.removeItem(draftKey); }
          document.getElementById("score").textContent = answer.score;
          document.getElementById("state").textContent = answer.state;
        }
        say(answer.message, !response.ok);
        main.dataset.refused = response.ok ? "" : "1";
      }))
      .catch(() => say(main.dataset.failed, true));
  }

  function save() {
    clearTimeout(commentTimer);
    commentTimer = null;
    pending = pending.then(send);
    return pending;
  }

  function go(url) {
    if (!url) { return; }
    if (commentTimer !== null) { save(); }
    pending.then(() => { window.location.assign(url); });
  }

  boxes.forEach((box) => box.addEventListener("change", save));
  comment.addEventListener("input", () => {
    clearTimeout(commentTimer);
    commentTimer = setTimeout(save, 400);
  });
  comment.addEventListener("blur", () => { if (commentTimer !== null) { save(); } });
  // A reload or a closed tab while the comment waits for its save: the save goes out as the page leaves
  // (keepalive), and the draft stays in this tab's sessionStorage until a save has kept it.
  const draftKey = "attn-review-draft:" + main.dataset.key;
  comment.addEventListener("input", () => { sessionStorage.setItem(draftKey, comment.value); });
  window.addEventListener("pagehide", () => {
    if (commentTimer === null) { return; }
    fetch(main.dataset.save, {method: "POST", headers: {"Content-Type": "application/json"}, body: body(), keepalive: true});
  });
  const draft = sessionStorage.getItem(draftKey);
  if (draft !== null && draft !== comment.value) {
    comment.value = draft;
    save();
  } else {
    sessionStorage.removeItem(draftKey);
  }

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    if (document.activeElement === comment) {
      if (event.key === "Escape") { comment.blur(); event.preventDefault(); }
      return;
    }
    const key = event.key;
    if (key >= "1" && key <= "9" && boxes[Number(key) - 1]) {
      boxes[Number(key) - 1].checked = !boxes[Number(key) - 1].checked;
      save();
    } else if (key === "0") {
      boxes.forEach((b) => { b.checked = false; });
      save();
    } else if (key === "c") {
      comment.focus();
    } else if (key === "j" || key === "ArrowRight") {
      go(main.dataset.next);
    } else if (key === "k" || key === "ArrowLeft") {
      go(main.dataset.previous);
    } else if (key === "u") {
      go(main.dataset.filter);
    } else if (key === "s") {
      go(main.dataset.reveal);
    } else {
      return;
    }
    event.preventDefault();
  });
})();
