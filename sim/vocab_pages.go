package sim

import "fmt"

// Pages for the step vocabulary's cases that no other page shows: a search
// box that answers the Enter key (the press action), and rows of
// look-alike controls of every kind (the target qualifiers: in the row,
// near a text, the nth).
func init() {
	register(Page{Path: "/vocab/search", What: `searchbox "Search": pressing Enter in it shows "Results for …" and counts the searches`,
		Handler: staticPage(vocabSearchHTML)})
	register(Page{Path: "/vocab/files", What: `a table of files (report.pdf, notes.txt, todo.md), each row with a textbox "New name" (Enter renames), a button "Rename" and a button "Delete"; a list of drafts, each with a link "Open"; #status says what happened`,
		Handler: staticPage(vocabFilesHTML)})
}

// vocabFilesHTML is /vocab/files: every control has two look-alikes.
var vocabFilesHTML = fmt.Sprintf(pageHead, "Files") + `<main><h1>Files</h1>
<table><caption>Shared files</caption>
<thead><tr><th>Name</th><th>New name</th><th>Actions</th></tr></thead>
<tbody>
<tr><td class="name">report.pdf</td><td><input type="text" aria-label="New name"></td><td><button type="button" data-act="rename">Rename</button> <button type="button" data-act="delete">Delete</button></td></tr>
<tr><td class="name">notes.txt</td><td><input type="text" aria-label="New name"></td><td><button type="button" data-act="rename">Rename</button> <button type="button" data-act="delete">Delete</button></td></tr>
<tr><td class="name">todo.md</td><td><input type="text" aria-label="New name"></td><td><button type="button" data-act="rename">Rename</button> <button type="button" data-act="delete">Delete</button></td></tr>
</tbody></table>
<h2>Drafts</h2>
<ul>
<li>Draft A <a href="#draft-a" data-draft="A">Open</a></li>
<li>Draft B <a href="#draft-b" data-draft="B">Open</a></li>
</ul>
<p id="status">Nothing happened yet.</p>
<script>
(function(){
  const status = t => { document.getElementById('status').textContent = t; };
  function rename(row) {
    const cell = row.querySelector('.name'), box = row.querySelector('input');
    if (!box.value.trim()) { status('Nothing to rename ' + cell.textContent + ' to.'); return; }
    status('Renamed ' + cell.textContent + ' to ' + box.value + '.');
    cell.textContent = box.value;
    box.value = '';
  }
  document.addEventListener('click', function(ev){
    const d = ev.target.closest('[data-draft]');
    if (d) { ev.preventDefault(); status('Opened draft ' + d.dataset.draft + '.'); return; }
    const b = ev.target.closest('[data-act]');
    if (!b) return;
    const row = b.closest('tr');
    if (b.dataset.act === 'rename') { rename(row); return; }
    status('Deleted ' + row.querySelector('.name').textContent + '.');
    row.remove();
  });
  document.addEventListener('keydown', function(ev){
    if (ev.key === 'Enter' && ev.target.matches('td input')) rename(ev.target.closest('tr'));
  });
})();
</script></main></body></html>`

var vocabSearchHTML = fmt.Sprintf(pageHead, "Search") + `<main><h1>Search</h1>
<input type="search" id="q" aria-label="Search">
<p id="results">No search yet.</p>
<script>
(function(){
  let n = 0;
  const q = document.getElementById('q');
  q.addEventListener('keydown', function(ev){
    if (ev.key !== 'Enter') return;
    n++;
    document.getElementById('results').textContent = 'Results for ' + q.value + ' (search ' + n + ').';
  });
})();
</script></main></body></html>`
