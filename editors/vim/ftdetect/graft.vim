" graft rule files (graft-rules(5)).
autocmd BufNewFile,BufRead *.graft setfiletype graft
