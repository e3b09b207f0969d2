package sim

import "fmt"

// Pages for the step vocabulary's cases that no other page shows: a search
// box that answers the Enter key (the press action).
func init() {
	register(Page{Path: "/vocab/search", What: `searchbox "Search": pressing Enter in it shows "Results for …" and counts the searches`,
		Handler: staticPage(vocabSearchHTML)})
}

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
