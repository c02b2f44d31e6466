/* placeholder: the filter module is being written */
