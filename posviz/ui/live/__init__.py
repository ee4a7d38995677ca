"""Live figures: the chart follows a slider while it is dragged, with posviz's exact math.

The kit builds the figure at the slider's own values (``states``: at most ``MAX_STATES`` of them, thinned to
a byte budget), each with the page's own builder, when the chart asks for them (the learner reaches for the
slider): the app's ``states/`` route builds them off the script run, once per settings for every session.
While the learner drags, a small script (``chart.js``, a Streamlit v2 component, no iframe) watches the
slider's thumb and shows the precomputed state nearest to it: no server round trip. Each state is drawn once
ahead of need by Plotly.js, in idle time, and a copy of that drawing (a still) laid over the chart while the
thumb moves. The slider is the ordinary control (bound to the URL and the session like any other); when the
learner lets go, Streamlit reruns once and the exact figure, captions and exports follow the value the slider
was left at. The exact figures built for the states are kept, so letting go at one of their values skips the
build; a key press or a release between two states fetches the exact figure at its value from the ``figure/``
route before the rerun is over; and a new exact figure that changed only what ``Plotly.animate`` redraws
(scatter data, labels, hover; RoPE's clock) is patched into the chart rather than redrawn whole.

Modules: ``states`` (the states of one slider, thinned), ``store`` (everything a process keeps between reruns,
each part with a byte budget), ``figures`` (figures and page results through the store), ``component`` (the
chart's component, its payload, and the sliders registered for the routes), ``routes`` (the app's routes that
build a registered slider's states and exact figures).
"""
