" vim_groups.vim - for each "LINE:COL class" of $SYNTAX_CASES, the syntax
" item of the token there and the highlight group it shows as, written to
" $SYNTAX_OUT (run by tests/editors_syntax.sh: vim -u NONE -N -es).
let s:out = []
for s:line in readfile($SYNTAX_CASES)
  let [s:pos, s:word] = split(s:line)[0:1]
  let [s:l, s:c] = split(s:pos, ':')
  let s:id = synID(str2nr(s:l), str2nr(s:c), 1)
  call add(s:out, s:pos . ' ' . s:word . ' ' . synIDattr(s:id, 'name') . ' '
        \ . synIDattr(synIDtrans(s:id), 'name'))
endfor
call writefile(s:out, $SYNTAX_OUT)
qall!
