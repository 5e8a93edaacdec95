package web

// applyTheme is the inline script at the top of every page's <head>: it
// puts the theme a person chose in this browser (static/theme.js keeps it
// in localStorage as "myco-theme") on <html data-theme> before anything
// is drawn, so a dark choice on a light system never flashes light. No
// choice, or storage that cannot be read, leaves the attribute off and the
// system's preference decides (static/style.css).
const applyTheme = `try{var t=localStorage.getItem('myco-theme');if(t==='light'||t==='dark')document.documentElement.dataset.theme=t}catch(e){}`
