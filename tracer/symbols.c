/* placeholder: the symbols module is being written */
